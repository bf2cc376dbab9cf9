/** Copy MCP Config: a ready snippet for Claude Code, Codex or Cursor, from `nano-brain mcp-config --json`. */

import * as vscode from "vscode";
import { cliCommand } from "../core/discovery";
import { parseJsonOutput, run } from "../core/exec";
import { parseMcpConfig, snippetPicks } from "../core/mcpConfig";
import { type Context, pickServer, reportErrors } from "./context";

export function copyMcpConfig(ctx: Context, client?: string): Promise<void> {
  return reportErrors(ctx, "Copy MCP Config", async () => {
    const server = await pickServer(ctx);
    if (server === undefined) return;
    const cli = server.command;
    if (cli === undefined) {
      void vscode.window.showErrorMessage("nano-brain: the server was not found, so there is no MCP config to copy.");
      return;
    }
    const { command, args } = cliCommand(cli, ["mcp-config"], server.folder.uri.fsPath);
    const config = parseMcpConfig(parseJsonOutput(await run(command, args), "nano-brain mcp-config"));
    if (config === undefined) throw new Error("nano-brain mcp-config printed no snippets");
    const picked = await vscode.window.showQuickPick(snippetPicks(config, client), {
      title: `MCP config for ${server.folder.name}`,
      placeHolder: "Which agent, which transport?",
      matchOnDescription: true,
    });
    if (picked === undefined) return;
    await vscode.env.clipboard.writeText(picked.snippet.text);
    const token =
      picked.snippet.transport === "http" ? ` It reads the token from $${config.tokenEnv} (file: ${config.tokenFile}).` : "";
    void vscode.window.showInformationMessage(
      `nano-brain: copied the ${picked.label} snippet for ${picked.snippet.where}.${token}`,
    );
  });
}
