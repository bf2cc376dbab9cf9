/**
 * The "N notes" CodeLens: the server's `nano-brain.notes` result (the notes anchored to one
 * symbol) as QuickPick items, and the client handler that runs the lens command.
 */

import { SERVER_COMMANDS } from "./commandArgs";
import { type CommandTarget, type Handler, commandTarget } from "./dispatch";
import { oneLine } from "./search";

export interface AnchoredNote {
  id: string;
  title: string;
  status: string;
  tags: string[];
  /** Why the note may be stale: the anchored code "changed" or went "missing"; null when it is as it was. */
  stale: string | null;
  snippet: string;
  /** When the note was written (ms since the epoch), if the server said. */
  createdMs: number | null;
  /** Who wrote it ("agent (MCP)", "editor", ...), if the server said. */
  author: string;
}

export interface AnchoredNotes {
  /** The qualified name, e.g. `billing.py::apply_discount`. */
  symbol: string;
  notes: AnchoredNote[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function str(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : fallback;
}

/** An ISO date or epoch seconds (the server's two ways of writing a time) as epoch ms. */
function instantMs(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return value * 1000;
  if (typeof value === "string" && value !== "") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

function staleness(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  return value === true ? "changed" : null;
}

function toNote(value: unknown): AnchoredNote | undefined {
  const raw = record(value);
  const id = str(raw?.["id"]);
  if (raw === undefined || id === "") return undefined;
  const tags = raw["tags"];
  return {
    id,
    title: str(raw["title"], `#${id}`),
    status: str(raw["status"], "active"),
    tags: Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [],
    stale: staleness(raw["stale"]),
    snippet: str(raw["snippet"]),
    createdMs: instantMs(raw["created_at"] ?? raw["updated_at"]),
    author: str(raw["author"]),
  };
}

/** `{symbol, notes: [...]}` from the server; anything else is no notes. */
export function parseAnchoredNotes(value: unknown): AnchoredNotes {
  const raw = record(value);
  const list = raw?.["notes"];
  return {
    symbol: str(raw?.["symbol"]),
    notes: Array.isArray(list) ? list.map(toNote).filter((n): n is AnchoredNote => n !== undefined) : [],
  };
}

/** `billing.py::Cart.total` -> `Cart.total`. */
export function symbolName(qualified: string): string {
  const i = qualified.indexOf("::");
  return i >= 0 ? qualified.slice(i + 2) : qualified;
}

/** The hover's short age: 45s, 12m, 3h, 5d, 7w, 14mo, 2y. */
export function age(msAgo: number): string {
  const s = Math.max(0, msAgo) / 1000;
  const units: [string, number][] = [
    ["y", 365 * 86400],
    ["mo", 30 * 86400],
    ["w", 7 * 86400],
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
  ];
  for (const [unit, size] of units) if (s >= size) return `${Math.floor(s / size)}${unit}`;
  return `${Math.floor(s)}s`;
}

const STATUS_RANK: Record<string, number> = { active: 0, unreviewed: 1, superseded: 2, retracted: 3 };

export interface NotePickItem {
  label: string;
  description: string;
  detail: string;
  id: string;
  title: string;
}

/** One QuickPick item per note, current ones first (the server's order otherwise). */
export function notePickItems(notes: AnchoredNotes, now = Date.now()): NotePickItem[] {
  const ordered = notes.notes
    .map((note, i) => ({ note, i }))
    .sort((a, b) => (STATUS_RANK[a.note.status] ?? 4) - (STATUS_RANK[b.note.status] ?? 4) || a.i - b.i)
    .map(({ note }) => note);
  return ordered.map((note) => {
    const marks: string[] = [];
    if (note.status !== "active") marks.push(note.status);
    if (note.stale !== null) marks.push(`may be stale: code ${note.stale === "missing" ? "removed" : "changed since"}`);
    const tags = note.tags.map((t) => `#${t}`).join(" ");
    return {
      label: `${note.stale !== null ? "$(warning)" : "$(note)"} ${note.title}`,
      description: [
        `#${note.id}`,
        note.author !== "" ? `by ${note.author}` : "",
        note.createdMs !== null ? `${age(now - note.createdMs)} ago` : "",
        tags,
        marks.length ? `[${marks.join(", ")}]` : "",
      ]
        .filter((s) => s !== "")
        .join("  "),
      detail: oneLine(note.snippet),
      id: note.id,
      title: note.title,
    };
  });
}

/**
 * The lens's arguments, with the document it was clicked in: the lens names the folder
 * (`root`) only, and with the document the server judges staleness on the open buffer, as
 * the lens title did.
 */
export function withDocument(args: readonly unknown[], documentUri: string | undefined): unknown[] {
  const [first, ...rest] = args;
  const raw = record(first);
  if (raw === undefined || documentUri === undefined || commandTarget(args).uri !== undefined) return [...args];
  return [{ ...raw, uri: documentUri }, ...rest];
}

export interface AnchoredNotesUi {
  /** The active editor's document when it is in the folder `target` names (else undefined). */
  documentIn(target: CommandTarget): string | undefined;
  /** Show the notes; `target` says which folder they are in. */
  show(notes: AnchoredNotes, target: CommandTarget): Promise<void>;
}

/** Runs `nano-brain.notes` (the lens command) on the server and shows what it returned. */
export function anchoredNotesHandler(ui: AnchoredNotesUi): Handler {
  return async (args, send) => {
    const sent = withDocument(args, ui.documentIn(commandTarget(args)));
    const notes = parseAnchoredNotes(await send(SERVER_COMMANDS.notes, sent));
    await ui.show(notes, commandTarget(sent));
    return notes;
  };
}
