/**
 * Observes the server's work-done progress (`window/workDoneProgress/create` + `$/progress`)
 * and hands it to the status bar instead of the client's default window progress.
 * Registered as a client feature so its handler is in place before `initialized` is sent.
 */

import {
  type BaseLanguageClient,
  type ClientCapabilities,
  type FeatureState,
  type StaticFeature,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
} from "vscode-languageclient/node";
import type * as vscode from "vscode";
import { type WorkDoneValue, isWorkDoneValue } from "./core/status";

export type ProgressSink = (token: string | number, value: WorkDoneValue) => void;

export class ProgressFeature implements StaticFeature {
  private readonly listeners = new Map<string | number, vscode.Disposable>();

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly sink: ProgressSink,
  ) {}

  getState(): FeatureState {
    return { kind: "static" };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = { ...capabilities.window, workDoneProgress: true };
  }

  initialize(): void {
    this.client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      if (this.listeners.has(token)) return null;
      const listener = this.client.onProgress(WorkDoneProgress.type, token, (value: unknown) => {
        if (!isWorkDoneValue(value)) return;
        this.sink(token, value);
        if (value.kind === "end") {
          this.listeners.get(token)?.dispose();
          this.listeners.delete(token);
        }
      });
      this.listeners.set(token, listener);
      return null;
    });
  }

  clear(): void {
    for (const [token, listener] of this.listeners) {
      listener.dispose();
      this.sink(token, { kind: "end" });
    }
    this.listeners.clear();
  }
}
