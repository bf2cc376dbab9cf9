/** One LogOutputChannel for the extension and the server; its level drives the LSP trace. */

import * as vscode from "vscode";
import { Trace } from "vscode-languageclient/node";
import type { TraceSetting } from "./core/settings";
import { effectiveTrace } from "./core/trace";

export const CHANNEL_NAME = "nano-brain";

export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(CHANNEL_NAME, { log: true });
}

export function toTrace(setting: TraceSetting): Trace {
  switch (setting) {
    case "verbose":
      return Trace.Verbose;
    case "messages":
      return Trace.Messages;
    default:
      return Trace.Off;
  }
}

/** The trace level for a client given the setting and the channel's current level. */
export function traceFor(log: vscode.LogOutputChannel, setting: TraceSetting): Trace {
  return toTrace(effectiveTrace(setting, log.logLevel));
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
