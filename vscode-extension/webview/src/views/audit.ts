/** The audit table (the log, a document's history), its details as "key: value" text. */

import { type App, docLink } from "../app";
import { h, shortTime } from "../dom";
import type { AuditEntry } from "../types";

/** Pairs shown in a row; the rest are named in the row's "+N more" tooltip. */
const MAX_PAIRS = 6;
/** Characters of one value shown (the whole value in its tooltip). */
const MAX_VALUE = 100;
/** Keys read first, in this order; the others follow as the entry gives them. */
const FIRST = ["reason", "superseded_by", "symbol", "source", "version", "kind", "collection", "tags"];
/** Keys whose value is a document id: shown as a link to it. */
const DOC_KEYS = new Set(["superseded_by", "previous_successor", "supersedes", "replaces", "doc", "document"]);
const DOC_ID = /^[0-9a-f]{12}$/;
const HASH = /^[0-9a-f]{40,64}$/;

/** A detail's value as plain text (no JSON): lists joined by commas, nested objects as
 * "key value; key value", hashes shortened, nothing for null or empty. */
export function valueText(value: unknown, depth = 0): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
  if (typeof value === "string") return HASH.test(value) ? `${value.slice(0, 12)}…` : value;
  if (Array.isArray(value)) {
    const parts = value.map((v) => valueText(v, depth + 1)).filter((v): v is string => v !== null);
    return parts.length ? parts.join(", ") : null;
  }
  if (typeof value === "object") {
    if (depth >= 2) return "…";
    const parts = Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => {
        const text = valueText(v, depth + 1);
        return text === null ? null : `${keyText(k)} ${text}`;
      })
      .filter((v): v is string => v !== null);
    return parts.length ? parts.join("; ") : null;
  }
  return null;
}

function keyText(key: string): string {
  return key.replace(/_/g, " ");
}

/** The details' pairs worth showing, the most telling first. */
export function detailPairs(details: Record<string, unknown>): [string, string][] {
  const keys = Object.keys(details);
  const ordered = [...FIRST.filter((k) => keys.includes(k)), ...keys.filter((k) => !FIRST.includes(k))];
  const out: [string, string][] = [];
  for (const key of ordered) {
    const text = valueText(details[key]);
    if (text !== null) out.push([key, text]);
  }
  return out;
}

function detailsCell(app: App, details: Record<string, unknown>): HTMLElement {
  const cell = h("td", { class: "details" });
  const pairs = detailPairs(details);
  pairs.slice(0, MAX_PAIRS).forEach(([key, text], i) => {
    const clipped = text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
    const value = DOC_KEYS.has(key) && DOC_ID.test(text)
      ? docLink(app, text, `#${text}`)
      : h("span", { class: "v", title: clipped !== text ? text : undefined }, clipped);
    if (i) cell.append(h("span", { class: "sep" }, " · "));
    cell.append(h("span", { class: "kv", "data-key": key }, h("span", { class: "k" }, `${keyText(key)}: `), value));
  });
  const rest = pairs.slice(MAX_PAIRS);
  if (rest.length) {
    cell.append(h("span", { class: "sep" }, " · "),
      h("span", { class: "more", title: rest.map(([k, v]) => `${keyText(k)}: ${v}`).join("\n") }, `+${rest.length} more`));
  }
  return cell;
}

export function auditTable(app: App, entries: AuditEntry[], withDoc: boolean): HTMLElement {
  if (entries.length === 0) return h("p", { class: "muted" }, "No entries.");
  return h("table", { class: "audit" },
    h("thead", {}, h("tr", {}, h("th", {}, "when"), h("th", {}, "who"), h("th", {}, "what"), withDoc ? h("th", {}, "document") : null, h("th", {}, "status"), h("th", {}, "details"))),
    h("tbody", {}, entries.map((e) =>
      h("tr", { "data-action": e.action, "data-actor": e.actor },
        h("td", { class: "when" }, shortTime(e.at)),
        h("td", {}, e.actor),
        h("td", {}, e.action),
        withDoc ? h("td", { class: "doc" }, e.doc_id ? docLink(app, e.doc_id, e.title ?? e.doc_id) : "") : null,
        h("td", { class: "status" }, e.prev_status || e.new_status ? `${e.prev_status ?? "new"} → ${e.new_status ?? ""}` : ""),
        detailsCell(app, e.details)))));
}
