/**
 * One language client per workspace folder: start, guarded restart (the old client is
 * disposed first), and restart with backoff when the server crashes.
 */

import * as vscode from "vscode";
import {
  type StaticFeature,
  type DynamicFeature,
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandlerResult,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { Backoff } from "./core/backoff";
import { type Discovery, type ServerCommand, lspCommand } from "./core/discovery";
import { SerialGuard } from "./core/guard";
import { type Settings, toInitializationOptions } from "./core/settings";
import { hoverMarkdownTrust } from "./core/trust";
import type { ServerState, WorkDoneValue } from "./core/status";
import { folderSettings } from "./config";
import { errorText, traceFor } from "./log";
import { ProgressFeature } from "./progressFeature";
import { findServer } from "./serverLookup";

export interface FolderServerHooks {
  state(server: FolderServer, state: ServerState): void;
  progress(server: FolderServer, token: string | number, value: WorkDoneValue): void;
  missing(server: FolderServer, discovery: Extract<Discovery, { ok: false }>): void;
  gaveUp(server: FolderServer): void;
  started(server: FolderServer, client: LanguageClient): void;
  settingsWarnings(server: FolderServer, warnings: string[]): void;
}

const STOP_TIMEOUT_MS = 5_000;

/**
 * A LanguageClient without the built-in executeCommand feature: the CommandRouter
 * registers the server's commands once for every folder's client.
 */
class NanoBrainClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    const method = (feature as { registrationType?: { method?: string } }).registrationType?.method;
    if (method === "workspace/executeCommand") return;
    super.registerFeature(feature);
  }
}

export class FolderServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private server: ServerCommand | undefined;
  private settings: Settings | undefined;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;
  private readonly backoff = new Backoff();
  private readonly guard = new SerialGuard(() => this.restartNow());

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly log: vscode.LogOutputChannel,
    private readonly hooks: FolderServerHooks,
  ) {}

  /** The running client, if any. */
  get languageClient(): LanguageClient | undefined {
    return this.client?.isRunning() ? this.client : undefined;
  }

  /** How to run the CLI for this folder (known once discovery succeeded). */
  get command(): ServerCommand | undefined {
    return this.server;
  }

  start(): Promise<void> {
    return this.guard.run();
  }

  /** A deliberate restart (command, settings, interpreter): backoff starts over. */
  restart(reason: string): Promise<void> {
    this.log.info(`[${this.folder.name}] restart: ${reason}`);
    this.backoff.reset();
    return this.guard.run();
  }

  applyTrace(): void {
    const client = this.languageClient;
    if (client !== undefined && this.settings !== undefined) {
      void client.setTrace(traceFor(this.log, this.settings.trace));
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.clearTimer();
    await this.stopClient();
  }

  private async restartNow(): Promise<void> {
    this.clearTimer();
    await this.stopClient();
    if (this.disposed) return;

    const { settings, warnings } = folderSettings(this.folder);
    this.settings = settings;
    if (warnings.length > 0) this.hooks.settingsWarnings(this, warnings);
    this.hooks.state(this, "starting");

    const found = await findServer(this.folder, settings.serverPath, this.log);
    if (this.disposed) return;
    if (!found.ok) {
      this.server = undefined;
      this.hooks.state(this, "missing");
      this.hooks.missing(this, found);
      return;
    }
    this.server = found.server;

    const client = this.createClient(found.server, settings);
    this.client = client;
    try {
      await client.start();
      await client.setTrace(traceFor(this.log, settings.trace));
      this.hooks.started(this, client);
      this.hooks.state(this, "running");
    } catch (error) {
      this.log.error(`[${this.folder.name}] the server did not start: ${errorText(error)}`);
      if (this.client === client) {
        this.client = undefined;
        await client.dispose(STOP_TIMEOUT_MS).catch(() => undefined);
      }
      this.scheduleRestart();
    }
  }

  private createClient(server: ServerCommand, settings: Settings): LanguageClient {
    const { command, args } = lspCommand(server);
    const cwd = this.folder.uri.fsPath;
    const serverOptions: ServerOptions = {
      command,
      args,
      transport: TransportKind.stdio,
      options: { cwd },
    };
    const folderGlob = `${cwd.replace(/\\/g, "/")}/**/*`;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", pattern: folderGlob },
        { scheme: "untitled" },
      ],
      workspaceFolder: this.folder,
      initializationOptions: toInitializationOptions(settings, vscode.workspace.isTrusted),
      outputChannel: this.log,
      traceOutputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // Hovers quote memory (commit messages, transcripts) a stranger may have written: only
      // nano-brain's own commands may run from a link in them.
      markdown: { isTrusted: hoverMarkdownTrust(), supportHtml: false },
      initializationFailedHandler: (error) => {
        this.log.error(`[${this.folder.name}] initialize failed: ${errorText(error)}`);
        return false;
      },
      errorHandler: {
        error: (error, _message, count): ErrorHandlerResult => {
          this.log.error(`[${this.folder.name}] connection error (${count ?? 1}): ${error.message}`);
          return { action: (count ?? 1) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
        },
        closed: (): CloseHandlerResult => {
          this.onCrash(client);
          return {
            action: CloseAction.DoNotRestart,
            handled: true,
            message: `[${this.folder.name}] the server stopped unexpectedly`,
          };
        },
      },
    };
    const client = new NanoBrainClient(
      `nano-brain:${this.folder.uri.toString()}`,
      `nano-brain (${this.folder.name})`,
      serverOptions,
      clientOptions,
    );
    client.registerFeature(
      new ProgressFeature(client, (token, value) => this.hooks.progress(this, token, value)),
    );
    return client;
  }

  private onCrash(client: LanguageClient): void {
    if (client !== this.client || this.disposed) return;
    this.client = undefined;
    this.log.warn(`[${this.folder.name}] the server exited`);
    // The client is already stopped; dispose it once the close handling has finished.
    setTimeout(() => void client.dispose(STOP_TIMEOUT_MS).catch(() => undefined), 0);
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.disposed || this.timer !== undefined) return;
    const delay = this.backoff.nextDelay();
    if (delay === undefined) {
      this.log.error(
        `[${this.folder.name}] the server crashed ${this.backoff.recentCrashes} times in a few minutes; ` +
          "not restarting it again (run “nano-brain: Restart Server”)",
      );
      this.hooks.state(this, "stopped");
      this.hooks.gaveUp(this);
      return;
    }
    this.log.warn(`[${this.folder.name}] restarting the server in ${Math.round(delay / 1000)} s`);
    this.hooks.state(this, "restarting");
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.guard.run();
    }, delay);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async stopClient(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    if (old === undefined) return;
    try {
      await old.dispose(STOP_TIMEOUT_MS);
    } catch (error) {
      this.log.warn(`[${this.folder.name}] stopping the old server: ${errorText(error)}`);
    }
  }
}
