/** The extension's commands (ids as declared in package.json). */

import * as vscode from "vscode";
import { registerAnchoredNotes } from "./anchoredNotes";
import type { Context } from "./context";
import { copyMcpConfig } from "./mcp";
import { openMemory } from "./memory";
import { recordDecision, retract, saveSelection, supersede } from "./notes";
import { searchMemory, searchRelated } from "./search";
import { wakeUp } from "./wakeUp";
import { registerWhy } from "./why";

export const COMMANDS = {
  saveSelection: "nanoBrain.saveSelection",
  recordDecision: "nanoBrain.recordDecision",
  search: "nanoBrain.search",
  searchRelated: "nanoBrain.searchRelated",
  supersede: "nanoBrain.supersede",
  retract: "nanoBrain.retract",
  wakeUp: "nanoBrain.wakeUp",
  openMemory: "nanoBrain.openMemory",
  copyMcpConfig: "nanoBrain.copyMcpConfig",
  restartServer: "nanoBrain.restartServer",
  showLog: "nanoBrain.showLog",
  why: "nanoBrain.why",
} as const;

export function registerCommands(ctx: Context): vscode.Disposable[] {
  const register = (id: string, fn: (...args: unknown[]) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(id, fn);
  return [
    register(COMMANDS.saveSelection, () => saveSelection(ctx)),
    register(COMMANDS.recordDecision, () => recordDecision(ctx)),
    register(COMMANDS.search, () => searchMemory(ctx)),
    register(COMMANDS.searchRelated, () => searchRelated(ctx)),
    register(COMMANDS.supersede, (arg) => supersede(ctx, arg)),
    register(COMMANDS.retract, (arg) => retract(ctx, arg)),
    register(COMMANDS.wakeUp, () => wakeUp(ctx)),
    register(COMMANDS.openMemory, () => openMemory(ctx)),
    register(COMMANDS.copyMcpConfig, (client) =>
      copyMcpConfig(ctx, typeof client === "string" ? client : undefined),
    ),
    register(COMMANDS.restartServer, () => ctx.manager.restartAll("nano-brain: Restart Server")),
    register(COMMANDS.showLog, () => ctx.log.show()),
    register(COMMANDS.why, () => vscode.commands.executeCommand("nano-brain.why")),
    registerAnchoredNotes(ctx),
    registerWhy(ctx),
  ];
}
