/**
 * "Why is this code like this?": the server's `nano-brain.why` view (anchored notes, the
 * commits that changed the symbol, the sessions that edited its file), opened as a read-only
 * Markdown document. The hover links to it; the palette runs it at the cursor.
 */

import { SERVER_COMMANDS } from "./commandArgs";
import { type CommandTarget, type Handler, commandTarget } from "./dispatch";

export interface WhyView {
  /** The qualified name, e.g. `billing.py::RefundPolicy.refund_amount`. */
  symbol: string;
  /** The whole view as Markdown (the server renders it). */
  text: string;
  notes: number;
  commits: number;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The server's result; anything else is an empty view that says so. */
export function parseWhyView(value: unknown): WhyView {
  const raw = record(value) ?? {};
  const symbol = typeof raw["symbol"] === "string" ? raw["symbol"] : "";
  const text = typeof raw["text"] === "string" && raw["text"] !== "" ? raw["text"] : "# Why\n\nThe server returned no view.\n";
  const count = (key: string): number => (Array.isArray(raw[key]) ? (raw[key] as unknown[]).length : 0);
  return { symbol, text: text.endsWith("\n") ? text : `${text}\n`, notes: count("notes"), commits: count("commits") };
}

export interface WhyUi {
  /** Where the cursor is, when the command names no symbol and no position. */
  cursor(): { uri: string; position: { line: number; character: number } } | undefined;
  /** Show the view; `target` says which folder it is about. */
  show(view: WhyView, target: CommandTarget): Promise<void>;
}

/**
 * Runs `nano-brain.why` (the hover's link passes `{symbol, root}`; the palette passes nothing
 * and the cursor is used) and shows the view. Returns it, for callers that run it from code.
 */
export function whyHandler(ui: WhyUi): Handler {
  return async (args, send) => {
    const first = record(args[0]);
    let sent: unknown[] = [...args];
    if (first === undefined || (first["symbol"] === undefined && first["position"] === undefined)) {
      const at = ui.cursor();
      if (at === undefined) throw new Error("put the cursor on a symbol first");
      sent = [{ ...(first ?? {}), uri: at.uri, position: at.position }];
    }
    const view = parseWhyView(await send(SERVER_COMMANDS.why, sent));
    await ui.show(view, commandTarget(sent));
    return view;
  };
}
