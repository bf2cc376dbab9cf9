/** What every command needs, and the small prompts they share. */

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import type { FolderServer } from "../client";
import type { CommandRouter } from "../commandRouter";
import type { Location } from "../core/commandArgs";
import type { MemoryDocuments } from "../documents";
import type { MemoryPanels } from "../memoryPanel";
import { errorText } from "../log";
import type { ServerManager } from "../servers";
import type { StatusBar } from "../statusBar";

export interface Context {
  manager: ServerManager;
  router: CommandRouter;
  documents: MemoryDocuments;
  memory: MemoryPanels;
  status: StatusBar;
  log: vscode.LogOutputChannel;
}

/** The folder server for the active editor, the only folder, or the one the user picks. */
export async function pickServer(ctx: Context): Promise<FolderServer | undefined> {
  const active = ctx.manager.forUri(vscode.window.activeTextEditor?.document.uri);
  if (active !== undefined) return active;
  const servers = ctx.manager.all;
  if (servers.length === 0) {
    void vscode.window.showWarningMessage("nano-brain: open a folder first; memory is kept per workspace folder.");
    return undefined;
  }
  if (servers.length === 1) return servers[0];
  const folder = await vscode.window.showWorkspaceFolderPick({ placeHolder: "Which folder's memory?" });
  return folder !== undefined ? ctx.manager.get(folder) : undefined;
}

export function runningClient(server: FolderServer): LanguageClient | undefined {
  const client = server.languageClient;
  if (client === undefined) {
    void vscode.window
      .showErrorMessage(
        `nano-brain (${server.folder.name}): the server is not running.`,
        "Restart Server",
        "Show Log",
      )
      .then((choice) => {
        if (choice === "Restart Server") void vscode.commands.executeCommand("nanoBrain.restartServer");
        if (choice === "Show Log") void vscode.commands.executeCommand("nanoBrain.showLog");
      });
  }
  return client;
}

export function editorLocation(editor: vscode.TextEditor): Location {
  const { start, end } = editor.selection;
  return {
    uri: editor.document.uri.toString(),
    range: {
      start: { line: start.line, character: start.character },
      end: { line: end.line, character: end.character },
    },
  };
}

/** Reports a failed command once, in the user's words; details go to the log. */
export async function reportErrors(ctx: Context, what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    ctx.log.error(`${what}: ${errorText(error)}`);
    void vscode.window.showErrorMessage(`nano-brain: ${what} failed: ${errorText(error)}`);
  }
}

/** An id from a command argument: "12", "#12", {id: "12"}. */
export function idArgument(arg: unknown): string | undefined {
  if (typeof arg === "string" && arg.trim() !== "") return arg;
  if (typeof arg === "object" && arg !== null) {
    const id = (arg as { id?: unknown }).id;
    if (typeof id === "string" || typeof id === "number") return String(id);
  }
  return undefined;
}

/** Id and title of what a server command returned (a document), for the confirmation. */
export function describeResult(result: unknown): string {
  if (typeof result === "object" && result !== null) {
    const r = result as { id?: unknown; title?: unknown };
    const id = typeof r.id === "string" || typeof r.id === "number" ? `#${String(r.id)}` : "";
    const title = typeof r.title === "string" ? ` “${r.title}”` : "";
    return `${id}${title}`.trim();
  }
  return "";
}
