/** The audit log, newest first. */

import type { App } from "../app";
import { h, ready } from "../dom";
import type { AuditEntry } from "../types";
import { auditTable } from "./audit";

export async function logView(app: App, root: HTMLElement): Promise<void> {
  const started = performance.now();
  const { entries } = await app.api.get<{ entries: AuditEntry[] }>("/api/log", { limit: 200 });
  root.append(h("h1", {}, "Audit log"), h("p", { class: "muted" }, "Every change to memory: who, when, what."), auditTable(app, entries, true));
  ready(root, "log", started);
}
