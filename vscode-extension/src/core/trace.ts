/** The LSP trace level follows the larger of the setting and the log channel's level. */

import type { TraceSetting } from "./settings";

/** vscode.LogLevel values (kept here so this module does not import `vscode`). */
export const LogLevel = {
  Off: 0,
  Trace: 1,
  Debug: 2,
  Info: 3,
  Warning: 4,
  Error: 5,
} as const;

const RANK: Record<TraceSetting, number> = { off: 0, messages: 1, verbose: 2 };

/** Trace -> verbose, Debug -> messages, anything quieter -> off. */
export function traceForLogLevel(level: number): TraceSetting {
  if (level === LogLevel.Trace) return "verbose";
  if (level === LogLevel.Debug) return "messages";
  return "off";
}

export function effectiveTrace(setting: TraceSetting, logLevel: number): TraceSetting {
  const fromLevel = traceForLogLevel(logLevel);
  return RANK[fromLevel] > RANK[setting] ? fromLevel : setting;
}
