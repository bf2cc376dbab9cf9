/** Save Selection as Note, Record Decision, Supersede Note, Retract Note. */

import * as vscode from "vscode";
import {
  SERVER_COMMANDS,
  defaultTitle,
  recordDecisionArgs,
  retractArgs,
  saveSelectionArgs,
  supersedeArgs,
  validateTitle,
} from "../core/commandArgs";
import {
  type Context,
  describeResult,
  editorLocation,
  idArgument,
  pickServer,
  reportErrors,
  runningClient,
} from "./context";
import { pickFromSearch } from "./searchPick";

const TAGS_PROMPT = "Tags (optional): comma or space separated";

function askTitle(prompt: string, value: string): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: prompt,
    prompt: "Title",
    value,
    valueSelection: [0, value.length],
    validateInput: validateTitle,
    ignoreFocusOut: true,
  });
}

function askTags(title: string, value = ""): Thenable<string | undefined> {
  return vscode.window.showInputBox({ title, prompt: TAGS_PROMPT, value, ignoreFocusOut: true });
}

function fileEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor?.document.uri.scheme === "file" ? editor : undefined;
}

async function done(ctx: Context, verb: string, result: unknown, folder: vscode.WorkspaceFolder): Promise<void> {
  const server = ctx.manager.get(folder);
  ctx.status.refreshCounts(folder, server?.command);
  const what = describeResult(result);
  void vscode.window.showInformationMessage(`nano-brain: ${verb}${what ? ` ${what}` : ""}.`);
}

export function saveSelection(ctx: Context): Promise<void> {
  return reportErrors(ctx, "Save Selection as Note", async () => {
    const editor = fileEditor();
    if (editor === undefined || editor.selection.isEmpty) {
      void vscode.window.showWarningMessage("nano-brain: select the text to save as a note first.");
      return;
    }
    const server = ctx.manager.forUri(editor.document.uri);
    const client = server !== undefined ? runningClient(server) : undefined;
    if (server === undefined || client === undefined) return;
    const text = editor.document.getText(editor.selection);
    const title = await askTitle("Save Selection as Note", defaultTitle(text));
    if (title === undefined) return;
    const tags = await askTags("Save Selection as Note");
    if (tags === undefined) return;
    const args = saveSelectionArgs(editorLocation(editor), text, title, tags);
    const result = await ctx.router.execute(SERVER_COMMANDS.saveSelection, [args], editor.document.uri);
    await done(ctx, "saved note", result, server.folder);
  });
}

export function recordDecision(ctx: Context): Promise<void> {
  return reportErrors(ctx, "Record Decision", async () => {
    const server = await pickServer(ctx);
    const client = server !== undefined ? runningClient(server) : undefined;
    if (server === undefined || client === undefined) return;
    const editor = fileEditor();
    const selected = editor !== undefined && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
    const title = await askTitle("Record Decision", "");
    if (title === undefined) return;
    const why = await vscode.window.showInputBox({
      title: "Record Decision",
      prompt: "What was decided and why (optional; the selection is attached when there is one)",
      ignoreFocusOut: true,
    });
    if (why === undefined) return;
    const tags = await askTags("Record Decision");
    if (tags === undefined) return;
    const text = [why.trim(), selected].filter((s) => s !== "").join("\n\n");
    const location = editor !== undefined && ctx.manager.forUri(editor.document.uri) === server ? editorLocation(editor) : undefined;
    const args = recordDecisionArgs(title, text, tags, location);
    const result = await ctx.router.execute(SERVER_COMMANDS.recordDecision, [args], server.folder.uri);
    await done(ctx, "recorded decision", result, server.folder);
  });
}

export function supersede(ctx: Context, arg?: unknown): Promise<void> {
  return reportErrors(ctx, "Supersede Note", async () => {
    const server = await pickServer(ctx);
    const client = server !== undefined ? runningClient(server) : undefined;
    if (server === undefined || client === undefined) return;
    let oldId = idArgument(arg);
    let oldTitle = "";
    if (oldId === undefined) {
      const hit = await pickFromSearch(client, server.folder.uri.fsPath, {
        title: "Supersede Note: which note is out of date?",
        placeholder: "Search memory",
      });
      if (hit === undefined) return;
      oldId = hit.id;
      oldTitle = hit.title;
    }
    const title = await askTitle(`Supersede #${oldId}: title of the new note`, oldTitle);
    if (title === undefined) return;
    const editor = fileEditor();
    const selected = editor !== undefined && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
    const text =
      selected !== ""
        ? selected
        : await vscode.window.showInputBox({
            title: `Supersede #${oldId}`,
            prompt: "What is true now (the new note's text)",
            ignoreFocusOut: true,
            validateInput: (v) => (v.trim() === "" ? "The new note needs some text." : undefined),
          });
    if (text === undefined) return;
    const where =
      selected !== "" && editor !== undefined ? editorLocation(editor) : { root: server.folder.uri.fsPath };
    const args = supersedeArgs(oldId, title, text, where);
    const result = await ctx.router.execute(SERVER_COMMANDS.supersede, [args], server.folder.uri);
    await done(ctx, `superseded #${args.old} with`, result, server.folder);
  });
}

export function retract(ctx: Context, arg?: unknown): Promise<void> {
  return reportErrors(ctx, "Retract Note", async () => {
    const server = await pickServer(ctx);
    const client = server !== undefined ? runningClient(server) : undefined;
    if (server === undefined || client === undefined) return;
    let id = idArgument(arg);
    if (id === undefined) {
      const hit = await pickFromSearch(client, server.folder.uri.fsPath, { title: "Retract Note: which note is wrong?", placeholder: "Search memory" });
      if (hit === undefined) return;
      id = hit.id;
    }
    const reason = await vscode.window.showInputBox({
      title: `Retract #${id.replace(/^#/, "")}`,
      prompt: "Why is it wrong? (kept in the audit log; the note stays on record but is hidden from reads)",
      ignoreFocusOut: true,
    });
    if (reason === undefined) return;
    const args = retractArgs(id, reason, server.folder.uri.fsPath);
    const result = await ctx.router.execute(SERVER_COMMANDS.retract, [args], server.folder.uri);
    await done(ctx, "retracted", result ?? { id: args.id }, server.folder);
  });
}
