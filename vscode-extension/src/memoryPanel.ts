/**
 * "nano-brain: Open Memory": the memory page (the same bundle `nano-brain ui` serves) in a
 * webview. The extension starts `nano-brain ui --no-open --json` for the folder, trades its
 * one-time code for a page token (good for that page server's API only), and answers the
 * page's API requests itself (the page never sees the token and needs no network access);
 * "open this code" opens the file.
 */

import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import * as vscode from "vscode";
import { cliCommand, type ServerCommand } from "./core/discovery";
import { isApiRequest, nonce, parseUiEndpoint, type UiEndpoint, webviewHtml, workspaceRelative } from "./core/memoryPage";
import { errorText } from "./log";

const READY_TIMEOUT_MS = 60_000;

interface Running {
  panel: vscode.WebviewPanel;
  process: ChildProcess | undefined;
}

export class MemoryPanels implements vscode.Disposable {
  private readonly panels = new Map<string, Running>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  async open(folder: vscode.WorkspaceFolder, server: ServerCommand): Promise<void> {
    const key = folder.uri.toString();
    const existing = this.panels.get(key);
    if (existing !== undefined) {
      existing.panel.reveal();
      return;
    }
    const { command, args } = cliCommand(server, ["ui", "--no-open"], folder.uri.fsPath);
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    try {
      const endpoint = await announced(child);
      const token = await redeem(endpoint);
      const [script, css] = await Promise.all([asset(endpoint, "app.js"), asset(endpoint, "app.css")]);
      const panel = vscode.window.createWebviewPanel(
        "nanoBrain.memory",
        `Memory: ${folder.name}`,
        vscode.ViewColumn.Active,
        { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [] },
      );
      panel.webview.html = webviewHtml(script, css, nonce(), panel.webview.cspSource);
      panel.webview.onDidReceiveMessage((message: unknown) => void this.answer(folder, endpoint, token, panel, message));
      panel.onDidDispose(() => this.close(key));
      // a reused server belongs to another `nano-brain ui`: closing the panel leaves it running
      this.panels.set(key, { panel, process: endpoint.reused ? undefined : child });
      this.log.info(`[${folder.name}] memory page on ${endpoint.url}${endpoint.reused ? " (already running)" : ""}`);
    } catch (error) {
      child.kill("SIGTERM");
      throw error;
    }
  }

  dispose(): void {
    for (const key of [...this.panels.keys()]) this.panels.get(key)?.panel.dispose();
  }

  private close(key: string): void {
    const running = this.panels.get(key);
    this.panels.delete(key);
    running?.process?.kill("SIGTERM");
  }

  private async answer(
    folder: vscode.WorkspaceFolder,
    endpoint: UiEndpoint,
    token: string,
    panel: vscode.WebviewPanel,
    message: unknown,
  ): Promise<void> {
    if (typeof message !== "object" || message === null) return;
    const msg = message as { type?: unknown; id?: unknown; method?: unknown; path?: unknown; body?: unknown; line?: unknown };
    if (msg.type === "open") {
      await this.openFile(folder, msg.path, msg.line);
      return;
    }
    if (msg.type !== "request" || typeof msg.id !== "number") return;
    const reply = (status: number, body: unknown): void => {
      void panel.webview.postMessage({ type: "response", id: msg.id, status, body });
    };
    if (!isApiRequest(msg.method, msg.path)) {
      reply(400, { error: "the page may only call the memory API" });
      return;
    }
    try {
      const init: RequestInit = {
        method: msg.method as string,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      };
      if (msg.method === "POST") init.body = JSON.stringify(msg.body ?? {});
      const response = await fetch(new URL(msg.path, endpoint.url), init);
      const body: unknown = await response.json().catch(() => null);
      reply(response.status, body);
    } catch (error) {
      this.log.warn(`[${folder.name}] memory page request ${String(msg.path)}: ${errorText(error)}`);
      reply(502, { error: `the memory page server did not answer: ${errorText(error)}` });
    }
  }

  private async openFile(folder: vscode.WorkspaceFolder, file: unknown, line: unknown): Promise<void> {
    const relative = workspaceRelative(file);
    if (relative === undefined) return;
    const uri = vscode.Uri.file(path.join(folder.uri.fsPath, ...relative.split("/")));
    const at = typeof line === "number" && line > 0 ? line - 1 : 0;
    try {
      const editor = await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.Beside, preview: true });
      const position = new vscode.Position(at, 0);
      editor.selection = new vscode.Selection(position, position);
      editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenter);
    } catch (error) {
      void vscode.window.showWarningMessage(`nano-brain: cannot open ${relative}: ${errorText(error)}`);
    }
  }
}

/** The endpoint line the child prints when ready; its stderr in the error otherwise. */
function announced(child: ChildProcess): Promise<UiEndpoint> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`nano-brain ui did not start: ${err.trim().slice(-300)}`)), READY_TIMEOUT_MS);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const newline = out.indexOf("\n");
      if (newline < 0) return;
      clearTimeout(timer);
      const endpoint = parseUiEndpoint(out.slice(0, newline));
      if (endpoint) resolve(endpoint);
      else reject(new Error(`nano-brain ui printed no endpoint: ${out.slice(0, 200)}`));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err = (err + chunk.toString("utf8")).slice(-4000);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code) => {
      if (out.includes("\n")) return;
      clearTimeout(timer);
      reject(new Error(`nano-brain ui exited (${String(code)}): ${err.trim().split("\n").pop() ?? ""}`));
    });
  });
}

async function redeem(endpoint: UiEndpoint): Promise<string> {
  const response = await fetch(new URL("/api/session", endpoint.url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code: endpoint.code }),
  });
  const data = (await response.json().catch(() => null)) as { token?: unknown; error?: unknown } | null;
  if (!response.ok || typeof data?.token !== "string") {
    throw new Error(`the memory page refused its own link: ${String(data?.error ?? response.status)}`);
  }
  return data.token;
}

async function asset(endpoint: UiEndpoint, name: string): Promise<string> {
  const response = await fetch(new URL(`/assets/${name}`, endpoint.url));
  if (!response.ok) throw new Error(`the memory page's ${name} is missing (${response.status}); reinstall nano-brain`);
  return response.text();
}
