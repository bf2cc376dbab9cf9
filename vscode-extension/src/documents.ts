/** Read-only virtual documents (scheme `nano-brain`): one note, or the wake-up digest. */

import * as vscode from "vscode";
import { cliCommand, type ServerCommand } from "./core/discovery";
import { parseJsonOutput, run } from "./core/exec";
import {
  SCHEME,
  type SearchHit,
  noteUriParts,
  parseVirtualQuery,
  renderNote,
  renderWakeUp,
  wakeUpUriParts,
  whyUriParts,
} from "./core/search";

export type CommandForFolder = (folderUri: string) => ServerCommand | undefined;

export class MemoryDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly cache = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(private readonly commandFor: CommandForFolder) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);
  }

  /** Open a search hit; its content (when the search returned it) is shown without a CLI call. */
  async openHit(folder: vscode.WorkspaceFolder, hit: SearchHit): Promise<void> {
    const parts = noteUriParts({ folder: folder.uri.toString(), id: hit.id }, hit.title);
    const uri = vscode.Uri.from({ scheme: SCHEME, ...parts });
    if (hit.content !== null) this.cache.set(uri.toString(), renderNote(hit));
    else this.cache.delete(uri.toString());
    this.changed.fire(uri);
    await this.show(uri);
  }

  async openNote(folder: vscode.WorkspaceFolder, id: string, title = id): Promise<void> {
    const parts = noteUriParts({ folder: folder.uri.toString(), id }, title);
    const uri = vscode.Uri.from({ scheme: SCHEME, ...parts });
    this.cache.delete(uri.toString());
    this.changed.fire(uri);
    await this.show(uri);
  }

  async openWakeUp(folder: vscode.WorkspaceFolder): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, ...wakeUpUriParts(folder.uri.toString(), folder.name) });
    this.changed.fire(uri);
    await this.show(uri);
  }

  /** The "why" view of a symbol, as the server rendered it (re-read with the CLI later). */
  async openWhy(folder: vscode.WorkspaceFolder, symbol: string, markdown: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, ...whyUriParts(folder.uri.toString(), symbol) });
    this.cache.set(uri.toString(), markdown);
    this.changed.fire(uri);
    await this.show(uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const cached = this.cache.get(uri.toString());
    if (cached !== undefined) return cached;
    const view = parseVirtualQuery(uri.query);
    if (view === undefined) return "# nano-brain\n\nThis link does not name a note.\n";
    const server = this.commandFor(view.folder);
    const folderPath = vscode.Uri.parse(view.folder).fsPath;
    if (server === undefined) {
      return "# nano-brain\n\nThe nano-brain server was not found for this folder.\n";
    }
    try {
      if (view.kind === "why") {
        const { command, args } = cliCommand(server, ["why", view.symbol], folderPath);
        const result = parseJsonOutput(await run(command, args), `nano-brain why ${view.symbol}`);
        const text = (result as { text?: unknown } | undefined)?.text;
        return typeof text === "string" ? `${text}\n` : "# Why\n\nNo view.\n";
      }
      if (view.kind === "wake-up") {
        const { command, args } = cliCommand(server, ["wake-up"], folderPath);
        return renderWakeUp(parseJsonOutput(await run(command, args), "nano-brain wake-up"));
      }
      const { command, args } = cliCommand(server, ["get", view.id], folderPath);
      return renderNote(parseJsonOutput(await run(command, args), `nano-brain get ${view.id}`));
    } catch (error) {
      return `# nano-brain\n\n${error instanceof Error ? error.message : String(error)}\n`;
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }

  private async show(uri: vscode.Uri): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}
