/** The status bar item: indexing progress, then the note count; click -> Search Memory. */

import * as vscode from "vscode";
import { cliCommand, type ServerCommand } from "./core/discovery";
import { parseJsonOutput, run } from "./core/exec";
import { type ServerState, StatusModel, type WorkDoneValue, countsFromStatus, healthFromDoctor } from "./core/status";
import { errorText } from "./log";

const COUNT_DEBOUNCE_MS = 500;

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly model = new StatusModel();
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    searchCommand: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.item = vscode.window.createStatusBarItem("nanoBrain.status", vscode.StatusBarAlignment.Left, 10);
    this.item.name = "nano-brain";
    this.item.command = searchCommand;
    this.render();
    this.item.show();
  }

  setState(folder: string, state: ServerState): void {
    this.model.setState(folder, state);
    this.render();
  }

  progress(folder: string, token: string | number, value: WorkDoneValue): void {
    this.model.progress(folder, token, value);
    this.render();
  }

  removeFolder(folder: string): void {
    this.model.removeFolder(folder);
    this.render();
  }

  /** Re-read the note count of a folder with `nano-brain status --json` (debounced). */
  refreshCounts(folder: vscode.WorkspaceFolder, server: ServerCommand | undefined): void {
    if (server === undefined) return;
    const key = folder.uri.toString();
    clearTimeout(this.pending.get(key));
    this.pending.set(
      key,
      setTimeout(() => {
        this.pending.delete(key);
        void this.readCounts(folder, key, server);
      }, COUNT_DEBOUNCE_MS),
    );
  }

  /** Run `nano-brain doctor --json` for a folder and show what it found wrong (if anything). */
  async refreshHealth(folder: vscode.WorkspaceFolder, server: ServerCommand | undefined): Promise<void> {
    if (server === undefined) return;
    const { command, args } = cliCommand(server, ["doctor"], folder.uri.fsPath);
    try {
      // doctor exits 1 when it found errors: its report is on stdout either way
      const result = await run(command, args, { timeoutMs: 120_000 });
      const health = healthFromDoctor(JSON.parse(result.stdout));
      if (health === undefined) throw new Error(`unexpected output: ${result.stdout.slice(0, 120)}`);
      health.problems.forEach((p) => this.log.warn(`[${folder.name}] doctor: ${p}`));
      this.model.setHealth(folder.uri.toString(), health);
      this.render();
    } catch (error) {
      this.log.warn(`[${folder.name}] nano-brain doctor: ${errorText(error)}`);
    }
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.item.dispose();
  }

  private async readCounts(folder: vscode.WorkspaceFolder, key: string, server: ServerCommand): Promise<void> {
    const { command, args } = cliCommand(server, ["status"], folder.uri.fsPath);
    try {
      const counts = countsFromStatus(parseJsonOutput(await run(command, args), "nano-brain status"));
      if (counts !== undefined) {
        this.model.setCounts(key, counts);
        this.render();
      }
    } catch (error) {
      this.log.warn(`[${folder.name}] note count: ${errorText(error)}`);
    }
  }

  private render(): void {
    const view = this.model.view();
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
  }
}
