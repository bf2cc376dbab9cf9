/** The shapes the JSON API returns (see server/nano_brain/ui/views.py and models.py). */

export interface Info {
  version: string;
  workspace: string;
  workspace_id: string;
  actor: string;
  review: boolean;
  read_only: boolean;
  kinds: string[];
  statuses: string[];
  collections: string[];
  tags: { tag: string; count: number }[];
  counts: { documents: number; by_kind: Record<string, number>; by_status: Record<string, number> };
}

export interface Doc {
  id: string;
  kind: string;
  collection: string;
  title: string;
  tags: string[];
  source_path: string | null;
  created_at: string;
  updated_at: string;
  status: string;
  version: number;
  superseded_by: string | null;
  author: string;
  content: string | null;
  cut?: boolean;
}

export interface Hit {
  id: string;
  title: string;
  kind: string;
  collection: string;
  tags: string[];
  created_at: string;
  updated_at: string;
  score: number;
  status: string;
  superseded_by: { id: string; title: string } | null;
  snippet: string;
  explain: Record<string, unknown> | null;
}

export interface SearchResponse {
  query: string;
  mode: string;
  legs: Record<string, string>;
  fallback: string[];
  results: Hit[];
  /** Why the list is empty when nothing cleared the relevance floor. */
  note?: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  doc_id: string | null;
  title: string | null;
  prev_status: string | null;
  new_status: string | null;
  details: Record<string, unknown>;
}

export interface Version {
  version: number;
  title: string;
  recorded_at: string | null;
  valid_from: string | null;
  valid_to: string | null;
  author: string;
  content: string | null;
}

export interface Anchor {
  path: string;
  symbol: string;
  state: "ok" | "changed" | "missing";
  line: number | null;
  end_line?: number | null;
}

export interface DocumentPage {
  document: Doc;
  versions: Version[];
  events: AuditEntry[];
  anchors: Anchor[];
  supersedes: { id: string; title: string; status: string }[];
  superseded_by: { id: string; title: string; status: string } | null;
  root: string;
}

export interface DiffLine {
  op: " " | "+" | "-" | "@";
  text: string;
}

export interface Diff {
  id: string;
  from: Version;
  to: Version;
  title_changed: boolean;
  lines: DiffLine[];
  cut: boolean;
}

export interface Timeline {
  unit: string;
  origin: number;
  width: number;
  kinds: string[];
  total: number;
  buckets: { i: number; kind: string; count: number; decisions: number }[];
  points: {
    id: string;
    title: string;
    kind: string;
    collection: string;
    t: number;
    status: string;
    superseded_by: string | null;
    decision: boolean;
  }[];
  outside: Record<string, { title: string; status: string }>;
  truncated: boolean;
}

export interface MapFile {
  path: string;
  notes: number;
  anchors: number;
  stale: number;
  commits: number;
}
