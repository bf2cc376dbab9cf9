/**
 * What the status bar says: indexing progress from `$/progress` while any folder indexes,
 * otherwise the number of notes; problems (server missing, restarting) win over both.
 */

export type WorkDoneValue =
  | { kind: "begin"; title: string; message?: string; percentage?: number }
  | { kind: "report"; message?: string; percentage?: number }
  | { kind: "end"; message?: string };

export type ServerState = "starting" | "running" | "restarting" | "stopped" | "missing";

export interface StatusView {
  text: string;
  tooltip: string;
}

interface Task {
  title: string;
  message: string;
  percentage: number | undefined;
}

interface Counts {
  notes: number;
  sessions: number;
}

/** What `nano-brain doctor --json` found wrong in one folder. */
export interface Health {
  errors: number;
  warnings: number;
  /** "error: store integrity: ... (fix: ...)", one per problem. */
  problems: string[];
}

export function isWorkDoneValue(value: unknown): value is WorkDoneValue {
  if (typeof value !== "object" || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return kind === "begin" || kind === "report" || kind === "end";
}

function clampPercent(p: unknown): number | undefined {
  return typeof p === "number" && Number.isFinite(p) ? Math.max(0, Math.min(100, Math.round(p))) : undefined;
}

export class StatusModel {
  private readonly tasks = new Map<string, Task>();
  private readonly counts = new Map<string, Counts>();
  private readonly states = new Map<string, ServerState>();
  private readonly health = new Map<string, Health>();

  setState(folder: string, state: ServerState): void {
    this.states.set(folder, state);
    if (state !== "running") this.clearTasks(folder);
  }

  removeFolder(folder: string): void {
    this.states.delete(folder);
    this.counts.delete(folder);
    this.health.delete(folder);
    this.clearTasks(folder);
  }

  setCounts(folder: string, counts: Counts): void {
    this.counts.set(folder, counts);
  }

  setHealth(folder: string, health: Health): void {
    this.health.set(folder, health);
  }

  progress(folder: string, token: string | number, value: WorkDoneValue): void {
    const key = `${folder}\u0000${String(token)}`;
    if (value.kind === "end") {
      this.tasks.delete(key);
      return;
    }
    const previous = this.tasks.get(key);
    if (value.kind === "begin") {
      this.tasks.set(key, {
        title: value.title,
        message: value.message ?? "",
        percentage: clampPercent(value.percentage),
      });
    } else if (previous !== undefined) {
      previous.message = value.message ?? previous.message;
      previous.percentage = clampPercent(value.percentage) ?? previous.percentage;
    }
  }

  get indexing(): boolean {
    return this.tasks.size > 0;
  }

  view(): StatusView {
    const states = [...this.states.values()];
    if (states.length > 0 && states.every((s) => s === "missing")) {
      return {
        text: "$(warning) nano-brain: not found",
        tooltip: "The nano-brain server was not found. Click to search memory (needs the server).",
      };
    }
    if (states.includes("restarting")) {
      return { text: "$(sync~spin) nano-brain: restarting", tooltip: "The server stopped; restarting." };
    }
    if (this.tasks.size > 0) return this.indexingView();
    if (states.includes("starting") && !states.includes("running")) {
      return { text: "$(sync~spin) nano-brain", tooltip: "Starting the nano-brain server…" };
    }
    if (states.length > 0 && states.every((s) => s === "stopped" || s === "missing")) {
      return {
        text: "$(circle-slash) nano-brain: stopped",
        tooltip: "The server is stopped. Run “nano-brain: Restart Server”.",
      };
    }
    let notes = 0;
    let sessions = 0;
    for (const c of this.counts.values()) {
      notes += c.notes;
      sessions += c.sessions;
    }
    const noun = notes === 1 ? "note" : "notes";
    let tooltip =
      this.counts.size === 0
        ? "nano-brain: click to search memory"
        : `nano-brain: ${notes} ${noun}, ${sessions} session summaries. Click to search memory.`;
    let text = this.counts.size === 0 ? "$(book) nano-brain" : `$(book) ${notes} ${noun}`;
    const problems = [...this.health.values()].flatMap((h) => h.problems);
    if (problems.length > 0) {
      const errors = [...this.health.values()].some((h) => h.errors > 0);
      text = `${errors ? "$(error)" : "$(warning)"} ${text.replace("$(book) ", "")}`;
      tooltip += `\n\nnano-brain doctor:\n${problems.slice(0, 8).join("\n")}${problems.length > 8 ? `\n… and ${problems.length - 8} more` : ""}`;
    }
    return { text, tooltip };
  }

  private indexingView(): StatusView {
    const tasks = [...this.tasks.values()];
    const percents = tasks.map((t) => t.percentage).filter((p): p is number => p !== undefined);
    const first = tasks[0] as Task;
    let text = "$(sync~spin) nano-brain: indexing";
    if (percents.length > 0) {
      const avg = Math.round(percents.reduce((a, b) => a + b, 0) / percents.length);
      text += ` ${avg}%`;
    } else if (first.message !== "") {
      text += ` ${first.message.slice(0, 40)}`;
    }
    const tooltip = tasks
      .map((t) => [t.title, t.message, t.percentage !== undefined ? `${t.percentage}%` : ""].filter(Boolean).join(" — "))
      .join("\n");
    return { text, tooltip };
  }

  private clearTasks(folder: string): void {
    for (const key of this.tasks.keys()) {
      if (key.startsWith(`${folder}\u0000`)) this.tasks.delete(key);
    }
  }
}

/** Counts from `nano-brain status --json` (`by_kind`). */
export function countsFromStatus(value: unknown): Counts | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const byKind = (value as { by_kind?: unknown }).by_kind;
  if (typeof byKind !== "object" || byKind === null) return undefined;
  const get = (k: string): number => {
    const n = (byKind as Record<string, unknown>)[k];
    return typeof n === "number" ? n : 0;
  };
  return { notes: get("note"), sessions: get("session") };
}

/** The problems of a `nano-brain doctor --json` report (undefined when it is not one). */
export function healthFromDoctor(value: unknown): Health | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const checks = (value as { checks?: unknown }).checks;
  if (!Array.isArray(checks)) return undefined;
  const problems: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const check of checks) {
    if (typeof check !== "object" || check === null) continue;
    const { level, area, name, detail, fix } = check as Record<string, unknown>;
    if (level !== "error" && level !== "warning") continue;
    if (level === "error") errors++;
    else warnings++;
    const how = typeof fix === "string" && fix !== "" ? ` (fix: ${fix})` : "";
    problems.push(`${String(level)}: ${String(area)} ${String(name)}: ${String(detail)}${how}`);
  }
  return { errors, warnings, problems };
}
