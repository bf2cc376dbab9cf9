/**
 * Arguments for the server's workspace/executeCommand commands. Each command takes one
 * object with named fields, so the server never has to guess positions. Positions and
 * ranges are LSP's (0-based line and UTF-16 character).
 */

export const SERVER_COMMANDS = {
  saveSelection: "nano-brain.saveSelection",
  recordDecision: "nano-brain.recordDecision",
  supersede: "nano-brain.supersede",
  searchRelated: "nano-brain.searchRelated",
  retract: "nano-brain.retract",
  /** The "N notes" CodeLens: `{symbol, root}` -> the notes anchored to that symbol. */
  notes: "nano-brain.notes",
  /** The hover's link: `{symbol, root}` (or `{uri, position}`) -> the "why" view. */
  why: "nano-brain.why",
} as const;

export const SEARCH_REQUEST = "nano-brain/search";

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** Where the text came from: the server anchors the note to the enclosing symbol. */
export interface Location {
  uri: string;
  range: Range;
}

export interface SaveSelectionArgs extends Location {
  text: string;
  title: string;
  tags: string[];
}

export interface RecordDecisionArgs {
  title: string;
  text: string;
  tags: string[];
  uri?: string;
  range?: Range;
}

export interface SupersedeArgs {
  /** The note being replaced (#id without the #). */
  old: string;
  title: string;
  text: string;
  uri?: string;
  range?: Range;
  /** The workspace folder (fsPath) when there is no document. */
  root?: string;
}

export interface RetractArgs {
  id: string;
  reason: string;
  root?: string;
}

/** Related memory for the symbol or selection at `range` (an empty range: the symbol there). */
export interface SearchRelatedArgs {
  uri: string;
  range: Range;
}

/** `nano-brain/search` params; results carry snippets, not whole documents. */
export interface SearchParams {
  query: string;
  limit: number;
  root?: string;
}

export const MAX_TITLE = 200;

/** "a, b  c,,a" -> ["a", "b", "c"]: split on commas and spaces, drop `#`, dedupe. */
export function parseTags(input: string): string[] {
  const seen = new Set<string>();
  for (const raw of input.split(/[\s,]+/)) {
    const tag = raw.replace(/^#+/, "").trim();
    if (tag !== "") seen.add(tag);
  }
  return [...seen];
}

/** An error message for the title input box, or undefined when the title is fine. */
export function validateTitle(title: string): string | undefined {
  const trimmed = title.trim();
  if (trimmed === "") return "A title is required.";
  if (trimmed.length > MAX_TITLE) return `At most ${MAX_TITLE} characters.`;
  return undefined;
}

/** A default title: the first non-empty line of the text, shortened. */
export function defaultTitle(text: string, max = 80): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== "")?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "#12", " 12 " -> "12"; "" stays "". */
export function normalizeRef(ref: string): string {
  return ref.trim().replace(/^#/, "");
}

export function saveSelectionArgs(
  location: Location,
  text: string,
  title: string,
  tagsInput: string,
): SaveSelectionArgs {
  return { ...location, text, title: title.trim(), tags: parseTags(tagsInput) };
}

export function recordDecisionArgs(
  title: string,
  text: string,
  tagsInput: string,
  location?: Location,
): RecordDecisionArgs {
  const args: RecordDecisionArgs = {
    title: title.trim(),
    text: text.trim() === "" ? title.trim() : text,
    tags: parseTags(tagsInput),
  };
  if (location !== undefined) {
    args.uri = location.uri;
    args.range = location.range;
  }
  return args;
}

/** With a location the new note is anchored there; without one, `root` names the folder. */
export function supersedeArgs(
  oldId: string,
  title: string,
  text: string,
  where: Location | { root: string },
): SupersedeArgs {
  const args: SupersedeArgs = { old: normalizeRef(oldId), title: title.trim(), text };
  if ("uri" in where) {
    args.uri = where.uri;
    args.range = where.range;
  } else {
    args.root = where.root;
  }
  return args;
}

export function retractArgs(id: string, reason: string, root?: string): RetractArgs {
  const args: RetractArgs = { id: normalizeRef(id), reason: reason.trim() };
  if (root !== undefined) args.root = root;
  return args;
}

export function searchRelatedArgs(uri: string, position: Position): SearchRelatedArgs {
  return { uri, range: { start: position, end: position } };
}

export function searchParams(query: string, root?: string, limit = 20): SearchParams {
  const params: SearchParams = { query: query.trim(), limit };
  if (root !== undefined) params.root = root;
  return params;
}
