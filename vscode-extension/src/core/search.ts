/** Search results from the server, as QuickPick items and read-only note documents. */

export interface SearchHit {
  id: string;
  title: string;
  kind: string;
  collection: string;
  tags: string[];
  status: string;
  score: number;
  snippet: string;
  updated_at: string;
  source_path: string | null;
  superseded_by: { id: string; title?: string } | null;
  content: string | null;
  stale: boolean;
}

function str(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : fallback;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function toHit(value: unknown): SearchHit | undefined {
  const raw = record(value);
  const id = str(raw?.["id"]);
  if (raw === undefined || id === "") return undefined;
  const successor = record(raw["superseded_by"]);
  const successorId = successor !== undefined ? str(successor["id"]) : str(raw["superseded_by"]);
  return {
    id,
    title: str(raw["title"], `#${id}`),
    kind: str(raw["kind"], "note"),
    collection: str(raw["collection"]),
    tags: strings(raw["tags"]),
    status: str(raw["status"], "active"),
    score: typeof raw["score"] === "number" ? raw["score"] : 0,
    snippet: str(raw["snippet"]),
    updated_at: str(raw["updated_at"]),
    source_path: typeof raw["source_path"] === "string" ? raw["source_path"] : null,
    superseded_by:
      successorId === ""
        ? null
        : { id: successorId, ...(successor?.["title"] !== undefined ? { title: str(successor["title"]) } : {}) },
    content: typeof raw["content"] === "string" ? raw["content"] : null,
    stale: raw["stale"] === true,
  };
}

/** Accepts `{results: [...]}` (the CLI's and the server's shape) or a bare list. */
export function parseSearchResponse(response: unknown): SearchHit[] {
  const list = Array.isArray(response) ? response : record(response)?.["results"];
  if (!Array.isArray(list)) return [];
  return list.map(toHit).filter((hit): hit is SearchHit => hit !== undefined);
}

export interface PickItem {
  label: string;
  description: string;
  detail: string;
  id: string;
}

const ICON: Record<string, string> = { note: "$(note)", session: "$(history)", code: "$(symbol-method)" };

export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function toPickItem(hit: SearchHit): PickItem {
  const marks: string[] = [];
  if (hit.status !== "active") marks.push(hit.status);
  if (hit.superseded_by) marks.push(`by #${hit.superseded_by.id}`);
  if (hit.stale) marks.push("may be stale");
  const tags = hit.tags.map((t) => `#${t}`).join(" ");
  return {
    label: `${ICON[hit.kind] ?? "$(note)"} ${hit.title}`,
    description: [`#${hit.id}`, tags, marks.length ? `[${marks.join(", ")}]` : ""]
      .filter((s) => s !== "")
      .join("  "),
    detail: oneLine(hit.snippet),
    id: hit.id,
  };
}

/** Virtual documents: nano-brain:/<title>.md?folder=<folder uri>&id=<id> (or &view=wake-up). */
export const SCHEME = "nano-brain";

export interface NoteRef {
  folder: string;
  id: string;
}

export type VirtualDoc =
  | { kind: "note"; folder: string; id: string }
  | { kind: "wake-up"; folder: string }
  | { kind: "why"; folder: string; symbol: string };

function slug(title: string): string {
  const cleaned = title.replace(/[\\/:*?"<>|#?%\s]+/g, " ").trim().slice(0, 60);
  return cleaned === "" ? "note" : cleaned;
}

export function noteUriParts(ref: NoteRef, title: string): { path: string; query: string } {
  const query = new URLSearchParams({ folder: ref.folder, id: ref.id }).toString();
  return { path: `/#${ref.id} ${slug(title)}.md`, query };
}

export function wakeUpUriParts(folder: string, name: string): { path: string; query: string } {
  const query = new URLSearchParams({ folder, view: "wake-up" }).toString();
  return { path: `/wake-up ${slug(name)}.md`, query };
}

export function whyUriParts(folder: string, symbol: string): { path: string; query: string } {
  const query = new URLSearchParams({ folder, view: "why", symbol }).toString();
  const local = symbol.includes("::") ? symbol.slice(symbol.indexOf("::") + 2) : symbol;
  return { path: `/why ${slug(local)}.md`, query };
}

export function parseVirtualQuery(query: string): VirtualDoc | undefined {
  const params = new URLSearchParams(query);
  const folder = params.get("folder");
  if (folder === null || folder === "") return undefined;
  if (params.get("view") === "wake-up") return { kind: "wake-up", folder };
  if (params.get("view") === "why") {
    const symbol = params.get("symbol");
    return symbol === null || symbol === "" ? undefined : { kind: "why", folder, symbol };
  }
  const id = params.get("id");
  return id === null || id === "" ? undefined : { kind: "note", folder, id };
}

/** A document (from `nano-brain get --json` or a search hit) rendered as Markdown. */
export function renderNote(value: unknown): string {
  const doc = record(value) ?? {};
  const id = str(doc["id"]);
  const lines = [`# ${str(doc["title"], `#${id}`)}`, ""];
  const facts: string[] = [`#${id}`, str(doc["kind"], "note"), str(doc["status"], "active")];
  const successor = str(record(doc["superseded_by"])?.["id"] ?? doc["superseded_by"]);
  if (successor !== "") facts.push(`superseded by #${successor}`);
  const tags = strings(doc["tags"]);
  if (tags.length) facts.push(tags.map((t) => `#${t}`).join(" "));
  const updated = str(doc["updated_at"]);
  if (updated !== "") facts.push(`updated ${updated}`);
  const source = str(doc["source_path"]);
  if (source !== "") facts.push(`source ${source}`);
  lines.push(`_${facts.join(" · ")}_`, "");
  lines.push(str(doc["content"]) || str(doc["snippet"]));
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The wake-up digest (`nano-brain wake-up --json`): the server renders it as Markdown. */
export function renderWakeUp(value: unknown): string {
  const text = str(record(value)?.["text"]).trim();
  return text === "" ? "# Wake up\n\nNothing in memory yet.\n" : `${text}\n`;
}
