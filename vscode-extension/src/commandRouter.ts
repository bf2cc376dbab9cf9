/**
 * The server's workspace/executeCommand commands as VS Code commands, registered once per
 * window and routed to the right folder's client. (The client's built-in feature would
 * register them once per client, and a second folder's client would fail on the duplicate.)
 */

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import type { LanguageClient } from "vscode-languageclient/node";
import { SERVER_COMMANDS } from "./core/commandArgs";

export type ClientResolver = (uri: vscode.Uri | undefined) => LanguageClient | undefined;

export class NotRunningError extends Error {
  constructor() {
    super("the nano-brain server is not running (see “nano-brain: Show Log”, or run “nano-brain: Restart Server”)");
  }
}

function uriOf(args: unknown[]): vscode.Uri | undefined {
  const first = args[0];
  if (typeof first === "object" && first !== null) {
    const uri = (first as { uri?: unknown }).uri;
    if (typeof uri === "string") return vscode.Uri.parse(uri);
  }
  return vscode.window.activeTextEditor?.document.uri;
}

export class CommandRouter implements vscode.Disposable {
  private readonly registered = new Map<string, vscode.Disposable>();

  constructor(private readonly resolve: ClientResolver) {
    Object.values(SERVER_COMMANDS).forEach((command) => this.ensure(command));
  }

  /** Register the commands a server advertised (once each). */
  addServerCommands(client: LanguageClient): void {
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    commands.forEach((command) => this.ensure(command));
  }

  /** Run a server command on the client of `uri`'s folder (or the active editor's). */
  async execute(command: string, args: unknown[], uri?: vscode.Uri): Promise<unknown> {
    const client = this.resolve(uri ?? uriOf(args));
    if (client === undefined) throw new NotRunningError();
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  dispose(): void {
    this.registered.forEach((d) => d.dispose());
    this.registered.clear();
  }

  private ensure(command: string): void {
    if (this.registered.has(command)) return;
    this.registered.set(
      command,
      vscode.commands.registerCommand(command, (...args: unknown[]) => this.execute(command, args)),
    );
  }
}
