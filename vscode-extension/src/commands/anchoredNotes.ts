/** The "N notes" CodeLens: pick one of the notes anchored to a symbol, read it in a virtual document. */

import * as vscode from "vscode";
import { targetUri } from "../commandRouter";
import { type AnchoredNotes, anchoredNotesHandler, notePickItems, symbolName } from "../core/anchoredNotes";
import { SERVER_COMMANDS } from "../core/commandArgs";
import type { CommandTarget } from "../core/dispatch";
import { type Context, reportErrors } from "./context";

async function showAnchoredNotes(ctx: Context, notes: AnchoredNotes, target: CommandTarget): Promise<void> {
  const name = symbolName(notes.symbol) || "this symbol";
  if (notes.notes.length === 0) {
    void vscode.window.showInformationMessage(`nano-brain: no notes on ${name} any more.`);
    return;
  }
  const server = ctx.manager.forUri(targetUri(target));
  if (server === undefined) throw new Error(`no nano-brain server for ${target.uri ?? target.root ?? "this folder"}`);
  const picked = await vscode.window.showQuickPick(notePickItems(notes), {
    title: `nano-brain: ${notes.notes.length} note${notes.notes.length === 1 ? "" : "s"} on ${name}`,
    placeHolder: "Pick a note to read it",
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked !== undefined) await ctx.documents.openNote(server.folder, picked.id, picked.title);
}

/**
 * Handle the lens command (`nano-brain.notes`) in the client: the server only returns the
 * notes. The command still returns them (parsed), for anyone who runs it from code.
 */
export function registerAnchoredNotes(ctx: Context): vscode.Disposable {
  const handler = anchoredNotesHandler({
    documentIn: (target) => {
      const document = vscode.window.activeTextEditor?.document.uri;
      if (document?.scheme !== "file") return undefined;
      const folder = vscode.workspace.getWorkspaceFolder(document);
      const server = folder !== undefined ? ctx.manager.get(folder) : undefined;
      return server !== undefined && server === ctx.manager.forUri(targetUri(target)) ? document.toString() : undefined;
    },
    show: (notes, target) => showAnchoredNotes(ctx, notes, target),
  });
  return ctx.router.handle(SERVER_COMMANDS.notes, async (args, send) => {
    let notes: unknown;
    await reportErrors(ctx, "Show Notes", async () => {
      notes = await handler(args, send);
    });
    return notes;
  });
}
