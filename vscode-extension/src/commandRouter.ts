/**
 * The server's workspace/executeCommand commands as VS Code commands, registered once per
 * window and routed to the right folder's client. (The client's built-in feature would
 * register them once per client, and a second folder's client would fail on the duplicate;
 * so its `middleware.executeCommand` never runs either: client handlers are added here.)
 */

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import type { LanguageClient } from "vscode-languageclient/node";
import { SERVER_COMMANDS } from "./core/commandArgs";
import { type CommandTarget, Dispatch, type Handler, commandTarget } from "./core/dispatch";

export type ClientResolver = (uri: vscode.Uri | undefined) => LanguageClient | undefined;

export class NotRunningError extends Error {
  constructor() {
    super("the nano-brain server is not running (see “nano-brain: Show Log”, or run “nano-brain: Restart Server”)");
  }
}

/** The document or folder a command names; else the active editor's document. */
export function targetUri(target: CommandTarget): vscode.Uri | undefined {
  if (target.uri !== undefined) return vscode.Uri.parse(target.uri);
  if (target.root !== undefined) return vscode.Uri.file(target.root);
  return vscode.window.activeTextEditor?.document.uri;
}

export class CommandRouter implements vscode.Disposable {
  private readonly registered = new Map<string, vscode.Disposable>();
  private readonly dispatch = new Dispatch((command, args) => this.execute(command, args));

  constructor(private readonly resolve: ClientResolver) {
    Object.values(SERVER_COMMANDS).forEach((command) => this.ensure(command));
  }

  /** Register the commands a server advertised (once each). */
  addServerCommands(client: LanguageClient): void {
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    commands.forEach((command) => this.ensure(command));
  }

  /** Handle a server command in the client (e.g. show what a CodeLens command returns). */
  handle(command: string, handler: Handler): vscode.Disposable {
    this.ensure(command);
    return new vscode.Disposable(this.dispatch.handle(command, handler).dispose);
  }

  /** Run a server command on the client of `uri`'s folder (or the one its arguments name). */
  async execute(command: string, args: unknown[], uri?: vscode.Uri): Promise<unknown> {
    const client = this.resolve(uri ?? targetUri(commandTarget(args)));
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
      vscode.commands.registerCommand(command, (...args: unknown[]) => this.dispatch.run(command, args)),
    );
  }
}
