/** "Why is this code like this?": the hover's link and the palette command open the view. */

import * as vscode from "vscode";
import { targetUri } from "../commandRouter";
import { SERVER_COMMANDS } from "../core/commandArgs";
import { whyHandler } from "../core/why";
import { type Context, reportErrors } from "./context";

export function registerWhy(ctx: Context): vscode.Disposable {
  const handler = whyHandler({
    cursor: () => {
      const editor = vscode.window.activeTextEditor;
      if (editor === undefined || editor.document.uri.scheme !== "file") return undefined;
      const { line, character } = editor.selection.active;
      return { uri: editor.document.uri.toString(), position: { line, character } };
    },
    show: async (view, target) => {
      const server = ctx.manager.forUri(targetUri(target));
      if (server === undefined) throw new Error(`no nano-brain server for ${target.uri ?? target.root ?? "this folder"}`);
      await ctx.documents.openWhy(server.folder, view.symbol, view.text);
    },
  });
  return ctx.router.handle(SERVER_COMMANDS.why, async (args, send) => {
    let view: unknown;
    await reportErrors(ctx, "Why Is This Code Like This?", async () => {
      view = await handler(args, send);
    });
    return view;
  });
}
