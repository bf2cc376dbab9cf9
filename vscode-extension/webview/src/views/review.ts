/** The review queue: unreviewed documents, each confirmed, retracted or superseded here. */

import { type App, docLink, statusActions } from "../app";
import { badge, docId, h, message, ready, shortTime } from "../dom";
import type { Doc } from "../types";

export async function reviewView(app: App, root: HTMLElement): Promise<void> {
  const started = performance.now();
  const data = await app.api.get<{ review: boolean; documents: Doc[] }>("/api/review", { limit: 100 });
  root.append(h("h1", {}, `Review (${data.documents.length})`));
  if (!data.review) {
    root.append(message("Review mode is off (review.enabled in the workspace config): agents' notes are not held for review. Documents still unreviewed are listed here."));
  }
  if (data.documents.length === 0) root.append(h("p", { class: "muted", id: "review-empty" }, "Nothing waits for review."));
  const list = h("ul", { class: "review-list" });
  for (const doc of data.documents) {
    const item = h("li", { class: "review-item", "data-id": doc.id });
    item.append(
      h("div", { class: "hit-title" }, docLink(app, doc.id, doc.title), docId(doc.id)),
      h("div", { class: "hit-meta" }, badge(doc.kind), badge(doc.collection), doc.tags.map((t) => badge(t, "tag")),
        h("span", { class: "muted" }, ` by ${doc.author} · ${shortTime(doc.created_at)}`)),
      h("pre", { class: "content preview" }, (doc.content ?? "") + (doc.cut ? "\n…" : "")),
      statusActions(app, doc, (what) => {
        item.replaceChildren(h("span", { class: "muted" }, `${what}: `), docLink(app, doc.id, doc.title));
        item.classList.add("done");
      }),
    );
    list.append(item);
  }
  root.append(list);
  ready(root, "review", started);
}
