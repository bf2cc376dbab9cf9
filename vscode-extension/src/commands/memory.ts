/** Open Memory: the memory page (search, timeline, documents, review, map) in a webview. */

import * as vscode from "vscode";
import { type Context, pickServer, reportErrors } from "./context";

export function openMemory(ctx: Context): Promise<void> {
  return reportErrors(ctx, "Open Memory", async () => {
    const server = await pickServer(ctx);
    if (server === undefined) return;
    const command = server.command;
    if (command === undefined) {
      void vscode.window.showErrorMessage("nano-brain: the server was not found; install it first.");
      return;
    }
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: "nano-brain: opening memory" },
      () => ctx.memory.open(server.folder, command),
    );
  });
}
