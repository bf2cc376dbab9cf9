/** Search with every filter the API takes; explain on demand for one result. */

import { type App, docLink, kindColor } from "../app";
import { badge, clear, docId, h, message, ready, shortTime } from "../dom";
import type { Hit, SearchResponse } from "../types";

/** The last search, so going back to the tab shows it again. */
let last: { form: Record<string, unknown>; response: SearchResponse | null } | null = null;

function checkboxes(name: string, values: string[], checked: string[] = []): HTMLElement {
  return h("fieldset", { class: "checks" },
    h("legend", {}, name),
    values.map((v) =>
      h("label", {}, h("input", { type: "checkbox", name, value: v, checked: checked.includes(v) }), v)));
}

function field(label: string, input: HTMLElement): HTMLElement {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

function values(form: HTMLFormElement, name: string): string[] {
  return [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((i) => i.value);
}

function text(form: HTMLFormElement, name: string): string | undefined {
  const el = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
  const v = el?.value.trim() ?? "";
  return v === "" ? undefined : v;
}

export function searchView(app: App, root: HTMLElement): void {
  const started = performance.now();
  const collections = h("select", { name: "collection", multiple: true, size: Math.min(4, Math.max(2, app.info.collections.length)) },
    app.info.collections.map((c) => h("option", { value: c }, c)));
  const form = h("form", { class: "search-form", id: "search-form" },
    h("div", { class: "search-line" },
      h("input", { type: "search", name: "query", id: "query", placeholder: "Search memory…", required: true, maxlength: 4000, "aria-label": "Query" }),
      h("select", { name: "mode", "aria-label": "Mode" }, ["hybrid", "lexical", "vector"].map((m) => h("option", { value: m }, m))),
      h("button", { type: "submit", class: "primary" }, "Search")),
    h("details", { class: "filters", open: true },
      h("summary", {}, "Filters"),
      h("div", { class: "filter-grid" },
        checkboxes("kind", app.info.kinds),
        checkboxes("status", app.info.statuses),
        field("Collections", collections),
        field("Tags (all of, comma-separated)", h("input", { type: "text", name: "tags", list: "tag-list" })),
        h("datalist", { id: "tag-list" }, app.info.tags.map((t) => h("option", { value: t.tag }))),
        field("Created after", h("input", { type: "text", name: "created_after", placeholder: "2024-05-01 or 7d" })),
        field("Created before", h("input", { type: "text", name: "created_before" })),
        field("Updated after", h("input", { type: "text", name: "updated_after" })),
        field("Updated before", h("input", { type: "text", name: "updated_before" })),
        field("As of", h("input", { type: "text", name: "as_of", placeholder: "read the store as it was then" })),
        field("Limit", h("input", { type: "number", name: "limit", min: 1, max: 200, value: 20 })),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "include_superseded" }), "include superseded"))));
  const results = h("div", { class: "results", id: "results" });
  root.append(form, results);

  const request = (explain: boolean): Record<string, unknown> => {
    const tags = (text(form, "tags") ?? "").split(",").map((t) => t.trim()).filter(Boolean);
    const body: Record<string, unknown> = {
      query: text(form, "query") ?? "",
      mode: text(form, "mode") ?? "hybrid",
      limit: Number(text(form, "limit") ?? 20),
      kind: values(form, "kind"),
      status: values(form, "status"),
      collection: [...collections.selectedOptions].map((o) => o.value),
      tags,
      include_superseded: (form.elements.namedItem("include_superseded") as HTMLInputElement).checked,
    };
    for (const name of ["created_after", "created_before", "updated_after", "updated_before", "as_of"]) {
      const v = text(form, name);
      if (v !== undefined) body[name] = v;
    }
    if (explain) Object.assign(body, { explain: true, track: false });
    return body;
  };

  const show = (response: SearchResponse, t0: number): void => {
    clear(results);
    const legs = Object.entries(response.legs).map(([k, v]) => `${k}: ${v}`).join(" · ");
    results.append(h("p", { class: "summary" }, `${response.results.length} result${response.results.length === 1 ? "" : "s"} (${response.mode}; ${legs})`));
    if (response.results.length === 0) {
      // an empty hybrid list is the relevance floor's verdict, not a failed search: say so
      results.append(message(response.note ? `Nothing in memory relates: ${response.note}.` : "Nothing found with these filters."));
    }
    const list = h("ol", { class: "hits" });
    response.results.forEach((hit) => list.append(hitItem(app, hit, () => explainOne(hit, list))));
    results.append(list);
    ready(results, "search", t0);
  };

  const explainOne = async (hit: Hit, list: HTMLElement): Promise<void> => {
    const slot = list.querySelector<HTMLElement>(`[data-explain="${hit.id}"]`);
    if (!slot) return;
    slot.replaceChildren(h("span", { class: "muted" }, "explaining…"));
    try {
      const response = await app.api.post<SearchResponse>("/api/search", request(true));
      const found = response.results.find((r) => r.id === hit.id);
      slot.replaceChildren(found?.explain ? explainTable(found.explain) : message("This result is not in the explained run (its rank moved)."));
    } catch (error) {
      slot.replaceChildren(message((error as Error).message, "error"));
    }
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const t0 = performance.now();
    results.dataset["state"] = "loading";
    const body = request(false);
    last = { form: body, response: null };
    app.api
      .post<SearchResponse>("/api/search", body)
      .then((response) => {
        if (last) last.response = response;
        show(response, t0);
      })
      .catch((error: Error) => {
        results.replaceChildren(message(error.message, "error"));
        results.dataset["state"] = "error";
      });
  });

  if (last?.response) {
    restore(form, collections, last.form);
    show(last.response, started);
  }
  ready(root, "search-view", started);
  (form.elements.namedItem("query") as HTMLInputElement).focus();
}

function restore(form: HTMLFormElement, collections: HTMLSelectElement, body: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value)) {
      form.querySelectorAll<HTMLInputElement>(`input[name="${key}"]`).forEach((i) => (i.checked = value.includes(i.value)));
      if (key === "collection") [...collections.options].forEach((o) => (o.selected = value.includes(o.value)));
      if (key === "tags") (form.elements.namedItem("tags") as HTMLInputElement).value = value.join(", ");
    } else if (typeof value === "boolean") {
      const el = form.elements.namedItem(key) as HTMLInputElement | null;
      if (el) el.checked = value;
    } else {
      const el = form.elements.namedItem(key) as HTMLInputElement | null;
      if (el) el.value = String(value);
    }
  }
}

function hitItem(app: App, hit: Hit, explain: () => void): HTMLElement {
  const statusBadge = hit.status !== "active" ? badge(hit.status, `status-${hit.status}`) : null;
  return h("li", { class: "hit", "data-id": hit.id },
    h("div", { class: "hit-title" },
      h("span", { class: "dot", style: `background:${kindColor(hit.kind)}` }),
      docLink(app, hit.id, hit.title),
      docId(hit.id),
      statusBadge,
      hit.superseded_by ? h("span", { class: "muted" }, " → ", docLink(app, hit.superseded_by.id, hit.superseded_by.title)) : null),
    h("div", { class: "hit-meta" },
      badge(hit.kind), badge(hit.collection), hit.tags.map((t) => badge(t, "tag")),
      h("span", { class: "muted" }, ` ${shortTime(hit.updated_at)} · score ${hit.score.toFixed(4)} `),
      h("button", { class: "link", "data-action": "explain", onclick: explain }, "explain")),
    h("p", { class: "snippet" }, hit.snippet),
    h("div", { "data-explain": hit.id }));
}

function explainTable(explain: Record<string, unknown>): HTMLElement {
  return h("table", { class: "explain" },
    h("tbody", {}, Object.entries(explain).map(([k, v]) =>
      h("tr", {}, h("th", {}, k), h("td", {}, typeof v === "number" ? v.toPrecision(4) : JSON.stringify(v))))));
}
