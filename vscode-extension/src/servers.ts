/** The folder servers of the window: created per workspace folder, restarted on settings. */

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { FolderServer } from "./client";
import { type Discovery, INSTALL_COMMAND, notFoundMessage } from "./core/discovery";
import { SECTION, KEYS, needsRestart } from "./core/settings";
import type { StatusBar } from "./statusBar";

export class ServerManager implements vscode.Disposable {
  private readonly servers = new Map<string, FolderServer>();
  private notifiedMissing = false;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly status: StatusBar,
    private readonly onStarted: (client: LanguageClient) => void,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        e.removed.forEach((f) => void this.remove(f));
        e.added.forEach((f) => void this.add(f));
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfiguration(e)),
      log.onDidChangeLogLevel(() => this.each((s) => s.applyTrace())),
    );
  }

  startAll(): void {
    for (const folder of vscode.workspace.workspaceFolders ?? []) void this.add(folder);
  }

  /** "nano-brain: Restart Server", an interpreter change: one guarded restart per folder. */
  async restartAll(reason: string): Promise<void> {
    this.notifiedMissing = false;
    await Promise.all([...this.servers.values()].map((s) => s.restart(reason)));
  }

  get(folder: vscode.WorkspaceFolder): FolderServer | undefined {
    return this.servers.get(folder.uri.toString());
  }

  get all(): FolderServer[] {
    return [...this.servers.values()];
  }

  /** The server for a document or folder URI; without one, the only server there is. */
  forUri(uri: vscode.Uri | undefined): FolderServer | undefined {
    const folder = uri !== undefined ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    if (folder !== undefined) return this.get(folder);
    return this.servers.size === 1 ? [...this.servers.values()][0] : undefined;
  }

  async dispose(): Promise<void> {
    this.subscriptions.forEach((d) => d.dispose());
    await Promise.all([...this.servers.values()].map((s) => s.dispose()));
    this.servers.clear();
  }

  private async add(folder: vscode.WorkspaceFolder): Promise<void> {
    if (folder.uri.scheme !== "file") return;
    const key = folder.uri.toString();
    if (this.servers.has(key)) return;
    const server = new FolderServer(folder, this.log, {
      state: (s, state) => {
        this.status.setState(key, state);
        if (state === "running") {
          this.status.refreshCounts(s.folder, s.command);
          void this.status.refreshHealth(s.folder, s.command);
        }
      },
      progress: (s, token, value) => {
        this.status.progress(key, token, value);
        if (value.kind === "end") this.status.refreshCounts(s.folder, s.command);
      },
      started: (_s, client) => this.onStarted(client),
      missing: (_s, discovery) => this.notifyMissing(discovery),
      gaveUp: (s) => void this.notifyGaveUp(s),
      settingsWarnings: (s, warnings) => {
        warnings.forEach((w) => this.log.warn(`[${s.folder.name}] ${w}`));
        void vscode.window.showWarningMessage(`nano-brain: ${warnings.join("; ")}`);
      },
    });
    this.servers.set(key, server);
    await server.start();
  }

  private async remove(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    const server = this.servers.get(key);
    this.servers.delete(key);
    this.status.removeFolder(key);
    await server?.dispose();
  }

  private onConfiguration(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration(SECTION)) return;
    let restarted = false;
    for (const server of this.servers.values()) {
      const uri = server.folder.uri;
      if (needsRestart((key) => e.affectsConfiguration(key, uri))) {
        restarted = true;
        void server.restart("settings changed");
      } else if (e.affectsConfiguration(`${SECTION}.${KEYS.trace}`, uri)) {
        server.applyTrace();
      }
    }
    if (restarted) this.notifiedMissing = false;
  }

  private each(fn: (server: FolderServer) => void): void {
    this.servers.forEach(fn);
  }

  /** One notification per window (again after a settings change or an explicit restart). */
  private notifyMissing(discovery: Extract<Discovery, { ok: false }>): void {
    if (this.notifiedMissing) return;
    this.notifiedMissing = true;
    const message = notFoundMessage(discovery);
    this.log.error(message);
    const copy = "Copy Install Command";
    const settings = "Open Settings";
    const log = "Show Log";
    void vscode.window.showErrorMessage(message, copy, settings, log).then(async (choice) => {
      if (choice === copy) {
        await vscode.env.clipboard.writeText(INSTALL_COMMAND);
        void vscode.window.showInformationMessage(`Copied: ${INSTALL_COMMAND}`);
      } else if (choice === settings) {
        await vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.${KEYS.serverPath}`);
      } else if (choice === log) {
        this.log.show();
      }
    });
  }

  private async notifyGaveUp(server: FolderServer): Promise<void> {
    const restart = "Restart Server";
    const choice = await vscode.window.showErrorMessage(
      `nano-brain (${server.folder.name}): the server keeps crashing and was not restarted. See the log.`,
      restart,
      "Show Log",
    );
    if (choice === restart) await server.restart("after repeated crashes, by request");
    else if (choice === "Show Log") this.log.show();
  }
}
