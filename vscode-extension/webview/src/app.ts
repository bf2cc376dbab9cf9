/** The page's shared state: the API, the workspace info, navigation and the status actions. */

import type { Api } from "./api";
import { h } from "./dom";
import type { Doc, Info } from "./types";

export interface App {
  api: Api;
  info: Info;
  /** Goes to a route such as "search", "doc/0123abcd4567". */
  go(route: string): void;
  toast(text: string, kind?: "info" | "error"): void;
}

export const KIND_COLORS: Record<string, string> = {
  note: "#4e79a7",
  session: "#f28e2b",
  code: "#59a14f",
  commit: "#b07aa1",
};

export function kindColor(kind: string): string {
  return KIND_COLORS[kind] ?? "#9c755f";
}

export function docLink(app: App, id: string, title: string): HTMLElement {
  return h(
    "a",
    {
      href: `#/doc/${id}`,
      class: "doc-link",
      "data-doc": id,
      onclick: (e: Event) => {
        e.preventDefault();
        app.go(`doc/${id}`);
      },
    },
    title || `#${id}`,
  );
}

/** Confirm / Retract / Supersede for one document; `done` runs after a change succeeded. */
export function statusActions(app: App, doc: Pick<Doc, "id" | "status">, done: (what: string) => void): HTMLElement {
  const box = h("div", { class: "actions" });
  const busy = (on: boolean): void => box.querySelectorAll("button,input,select").forEach((b) => ((b as HTMLButtonElement).disabled = on));
  const run = async (what: string, path: string, body: unknown): Promise<void> => {
    busy(true);
    try {
      await app.api.post(`/api/documents/${doc.id}/${path}`, body);
      app.toast(`${what} #${doc.id}`);
      done(what);
    } catch (error) {
      app.toast(`${what} failed: ${(error as Error).message}`, "error");
      busy(false);
    }
  };
  if (doc.status !== "active") {
    box.append(h("button", { class: "primary", "data-action": "confirm", onclick: () => void run("Confirmed", "confirm", {}) }, "Confirm"));
  }
  const reason = h("input", { type: "text", placeholder: "why it is wrong (optional)", size: 26, "aria-label": "Retraction reason", maxlength: 2000 });
  if (doc.status !== "retracted") {
    box.append(
      h("span", { class: "inline-form" }, reason,
        h("button", { "data-action": "retract", onclick: () => void run("Retracted", "retract", { reason: reason.value }) }, "Retract")),
    );
  }
  const how = h("select", { "aria-label": "Supersede direction" },
    h("option", { value: "by" }, "is replaced by"),
    h("option", { value: "replaces" }, "replaces"));
  const other = h("input", { type: "text", placeholder: "#id", size: 14, "aria-label": "Other document id", pattern: "#?[0-9a-f]{12}" });
  box.append(
    h("span", { class: "inline-form" }, "This ", how, other,
      h("button", {
        "data-action": "supersede",
        onclick: () => {
          const id = other.value.trim().replace(/^#/, "");
          if (!/^[0-9a-f]{12}$/.test(id)) {
            app.toast("Supersede: give the other document's #id (12 hex digits)", "error");
            return;
          }
          void run("Superseded", "supersede", { [how.value]: id });
        },
      }, "Supersede")),
  );
  if (app.info.read_only) busy(true);
  return box;
}
