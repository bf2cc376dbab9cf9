/** One document: content, versions with a diff between any two, status and audit history,
 * anchors (with staleness) that open the code, and its supersede neighbours. */

import { type App, docLink, kindColor, statusActions } from "../app";
import { append, badge, clear, docId, h, message, ready, shortTime } from "../dom";
import type { Diff, DocumentPage } from "../types";
import { auditTable } from "./audit";

export async function documentView(app: App, root: HTMLElement, id: string): Promise<void> {
  const started = performance.now();
  if (!/^[0-9a-f]{12}$/.test(id)) {
    root.append(message(`“${id}” is not a document id.`, "error"));
    return;
  }
  const page = await app.api.get<DocumentPage>(`/api/documents/${id}`);
  const doc = page.document;
  const reload = (): void => app.go(`doc/${id}`);
  append(root, [
    h("h1", { class: "doc-title" }, h("span", { class: "dot", style: `background:${kindColor(doc.kind)}` }), doc.title),
    h("div", { class: "doc-meta" },
      docId(doc.id),
      badge(doc.status, `status-${doc.status}`), badge(doc.kind), badge(doc.collection),
      doc.tags.map((t) => badge(t, "tag")),
      h("span", { class: "muted" }, ` version ${doc.version} · by ${doc.author} · created ${shortTime(doc.created_at)} · updated ${shortTime(doc.updated_at)}`),
      doc.source_path ? h("div", { class: "muted" }, `source: ${doc.source_path}`) : null),
    page.superseded_by
      ? h("p", { class: "notice" }, "Superseded by ", docLink(app, page.superseded_by.id, page.superseded_by.title), ` (${page.superseded_by.status})`)
      : null,
    page.supersedes.length
      ? h("p", { class: "notice" }, "Supersedes ", page.supersedes.flatMap((s, i) => [i ? ", " : "", docLink(app, s.id, s.title)]))
      : null,
    statusActions(app, doc, reload),
    h("pre", { class: "content", id: "content" }, doc.content ?? ""),
  ]);

  root.append(h("h2", {}, `Anchors (${page.anchors.length})`));
  if (page.anchors.length === 0) root.append(h("p", { class: "muted" }, "Not anchored to code."));
  else {
    root.append(h("ul", { class: "anchors" }, page.anchors.map((a) =>
      h("li", { "data-state": a.state },
        badge(a.state === "ok" ? "current" : a.state === "changed" ? "stale: code changed" : "stale: symbol gone", `anchor-${a.state}`),
        " ",
        h("button", {
          class: "link",
          "data-action": "open-code",
          title: a.state === "missing" ? "the symbol is gone; opens the file" : "open in the editor",
          onclick: () => app.api.transport.openFile(page.root, a.path, a.line),
        }, `${a.path}${a.line ? `:${a.line}` : ""}`),
        h("code", {}, ` ${a.symbol.split("::").pop() ?? a.symbol}`)))));
  }

  root.append(h("h2", {}, `Versions (${page.versions.length})`));
  const diffBox = h("div", { class: "diff", id: "diff" });
  if (page.versions.length > 1) {
    const pick = (name: string, chosen: number): HTMLSelectElement =>
      h("select", { name, "aria-label": name === "from" ? "Diff from version" : "Diff to version" },
        page.versions.map((v) => h("option", { value: v.version, selected: v.version === chosen }, `v${v.version} · ${shortTime(v.recorded_at)}`)));
    const last = page.versions[page.versions.length - 1]?.version ?? 1;
    const from = pick("from", last - 1);
    const to = pick("to", last);
    const show = async (): Promise<void> => {
      diffBox.replaceChildren(h("span", { class: "muted" }, "…"));
      try {
        const diff = await app.api.get<Diff>(`/api/documents/${id}/diff`, { from: from.value, to: to.value });
        renderDiff(diffBox, diff);
      } catch (error) {
        diffBox.replaceChildren(message((error as Error).message, "error"));
      }
    };
    root.append(h("div", { class: "inline-form diff-pick" }, "Diff ", from, " → ", to, h("button", { "data-action": "diff", onclick: () => void show() }, "Show diff")));
  }
  root.append(h("table", { class: "versions" },
    h("thead", {}, h("tr", {}, h("th", {}, "version"), h("th", {}, "title"), h("th", {}, "recorded"), h("th", {}, "in force until"), h("th", {}, "by"))),
    h("tbody", {}, page.versions.map((v) =>
      h("tr", {}, h("td", {}, `v${v.version}`), h("td", {}, v.title), h("td", {}, shortTime(v.recorded_at)), h("td", {}, v.valid_to ? shortTime(v.valid_to) : "now"), h("td", {}, v.author))))));
  root.append(diffBox);

  root.append(h("h2", {}, "History"), auditTable(app, page.events, false));
  ready(root, "document", started);
}

function renderDiff(box: HTMLElement, diff: Diff): void {
  clear(box);
  box.append(h("p", { class: "muted" }, `v${diff.from.version} → v${diff.to.version}`,
    diff.title_changed ? ` · title: “${diff.from.title}” → “${diff.to.title}”` : "",
    diff.cut ? " · long document: the diff covers its first 20,000 lines" : ""));
  if (diff.lines.length === 0) {
    box.append(message("The two versions have the same text."));
  } else {
    box.append(h("pre", { class: "diff-lines" }, diff.lines.map((l) =>
      h("div", { class: `diff-${l.op === "+" ? "add" : l.op === "-" ? "del" : l.op === "@" ? "hunk" : "same"}` },
        `${l.op === "@" ? "" : l.op}${l.text}`))));
  }
  box.dataset["state"] = "ready";
}
