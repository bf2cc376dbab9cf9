/** Search Memory and Search Related Memory: pick a result, read it in a virtual document. */

import * as vscode from "vscode";
import { SERVER_COMMANDS, searchRelatedArgs } from "../core/commandArgs";
import { parseSearchResponse, toPickItem } from "../core/search";
import { type Context, pickServer, reportErrors, runningClient } from "./context";
import { pickFromSearch } from "./searchPick";

function wordAtCursor(): string {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) return "";
  if (!editor.selection.isEmpty) {
    const text = editor.document.getText(editor.selection).trim();
    return text.includes("\n") ? "" : text.slice(0, 100);
  }
  return "";
}

export function searchMemory(ctx: Context): Promise<void> {
  return reportErrors(ctx, "Search Memory", async () => {
    const server = await pickServer(ctx);
    const client = server !== undefined ? runningClient(server) : undefined;
    if (server === undefined || client === undefined) return;
    const hit = await pickFromSearch(client, server.folder.uri.fsPath, {
      title: `Search Memory (${server.folder.name})`,
      placeholder: "Type to search notes, decisions, sessions and code",
      initial: wordAtCursor(),
    });
    if (hit !== undefined) await ctx.documents.openHit(server.folder, hit);
  });
}

export function searchRelated(ctx: Context): Promise<void> {
  return reportErrors(ctx, "Search Related Memory", async () => {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) return;
    const server = ctx.manager.forUri(editor.document.uri);
    const client = server !== undefined ? runningClient(server) : undefined;
    if (server === undefined || client === undefined) return;
    const { line, character } = editor.selection.active;
    const args = searchRelatedArgs(editor.document.uri.toString(), { line, character });
    const hits = parseSearchResponse(
      await ctx.router.execute(SERVER_COMMANDS.searchRelated, [args], editor.document.uri),
    );
    if (hits.length === 0) {
      void vscode.window.showInformationMessage("nano-brain: no related memory here.");
      return;
    }
    const picked = await vscode.window.showQuickPick(
      hits.map((hit) => ({ ...toPickItem(hit), hit })),
      { title: "Related memory", matchOnDescription: true, matchOnDetail: true },
    );
    if (picked !== undefined) await ctx.documents.openHit(server.folder, picked.hit);
  });
}
