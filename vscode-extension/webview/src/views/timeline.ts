/** Documents over time per kind (stacked bars), decisions and supersede chains as points and
 * links; a bar lists its documents, a point opens its document. */

import type { Query } from "../api";
import { type App, docLink, kindColor } from "../app";
import { badge, esc, h, message, ready, shortTime } from "../dom";
import type { Doc, Timeline } from "../types";

const BAR_H = 170;
const LANE_H = 200;
const LEFT = 44;
const RIGHT = 16;
const TOP = 10;
const AXIS = 22;

let lastQuery: Query = {};

function hash(text: string): number {
  let x = 2166136261;
  for (let i = 0; i < text.length; i++) x = Math.imul(x ^ text.charCodeAt(i), 16777619);
  return (x >>> 0) / 4294967296;
}

function label(t: number, unit: string): string {
  const iso = new Date(t * 1000).toISOString();
  return unit.includes("minute") ? `${iso.slice(11, 16)}` : unit.includes("hour") ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}h` : unit === "year" ? iso.slice(0, 4) : iso.slice(0, 10);
}

export async function timelineView(app: App, root: HTMLElement): Promise<void> {
  const kinds = app.info.kinds;
  const form = h("form", { class: "inline-form timeline-form" },
    h("span", { class: "checks" }, kinds.map((k) =>
      h("label", {}, h("input", { type: "checkbox", name: "kind", value: k, checked: ((lastQuery["kind"] as string[] | undefined) ?? kinds.filter((x) => x !== "code")).includes(k) }),
        h("span", { class: "dot", style: `background:${kindColor(k)}` }), k))),
    h("select", { name: "collection", "aria-label": "Collection" }, h("option", { value: "" }, "all collections"),
      app.info.collections.map((c) => h("option", { value: c, selected: lastQuery["collection"] === c }, c))),
    h("input", { type: "text", name: "tag", placeholder: "tag", size: 12, value: String(lastQuery["tag"] ?? ""), "aria-label": "Tag" }),
    h("input", { type: "text", name: "created_after", placeholder: "after (7d, 2024-05-01)", size: 18, value: String(lastQuery["created_after"] ?? ""), "aria-label": "Created after" }),
    h("input", { type: "text", name: "created_before", placeholder: "before", size: 12, value: String(lastQuery["created_before"] ?? ""), "aria-label": "Created before" }),
    h("button", { type: "submit", class: "primary" }, "Apply"));
  const chart = h("div", { class: "chart", id: "timeline-chart" });
  const bucketList = h("div", { class: "bucket-list", id: "bucket-list" });
  root.append(h("h1", {}, "Timeline"), form, chart, bucketList);

  const query = (): Query => {
    const data = new FormData(form);
    return {
      kind: data.getAll("kind").map(String),
      collection: String(data.get("collection") ?? ""),
      tag: String(data.get("tag") ?? "").trim(),
      created_after: String(data.get("created_after") ?? "").trim(),
      created_before: String(data.get("created_before") ?? "").trim(),
    };
  };
  const load = async (): Promise<void> => {
    const started = performance.now();
    root.dataset["state"] = "loading";
    lastQuery = query();
    try {
      const data = await app.api.get<Timeline>("/api/timeline", lastQuery);
      draw(app, chart, bucketList, data, lastQuery);
    } catch (error) {
      chart.replaceChildren(message((error as Error).message, "error"));
    }
    ready(root, "timeline", started);
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void load();
  });
  await load();
}

function draw(app: App, chart: HTMLElement, bucketList: HTMLElement, data: Timeline, query: Query): void {
  bucketList.replaceChildren();
  if (data.total === 0) {
    chart.replaceChildren(message("No documents match these filters."));
    return;
  }
  const width = Math.max(640, chart.clientWidth || 960);
  const plotW = width - LEFT - RIGHT;
  const n = data.buckets.reduce((m, b) => Math.max(m, b.i), 0) + 1;
  const bw = plotW / n;
  const totals = new Map<number, number>();
  for (const b of data.buckets) totals.set(b.i, (totals.get(b.i) ?? 0) + b.count);
  const max = Math.max(1, ...totals.values());
  const y = (count: number): number => (count / max) * BAR_H;
  const parts: string[] = [];
  const height = TOP + BAR_H + AXIS + LANE_H + 10;
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Documents over time">`);
  parts.push(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="arrow"/></marker></defs>`);
  // stacked bars, one stack per bucket in the order of the kinds
  const stacked = new Map<number, number>();
  const order = new Map(data.kinds.map((k, i) => [k, i]));
  const sorted = [...data.buckets].sort((a, b) => a.i - b.i || (order.get(a.kind) ?? 9) - (order.get(b.kind) ?? 9));
  for (const b of sorted) {
    const below = stacked.get(b.i) ?? 0;
    stacked.set(b.i, below + b.count);
    const x = LEFT + b.i * bw;
    const h0 = y(b.count);
    const top = TOP + BAR_H - y(below) - h0;
    const start = data.origin + b.i * data.width;
    parts.push(`<rect class="bar" data-bucket="${b.i}" x="${(x + 0.5).toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${Math.max(0.5, h0).toFixed(1)}" fill="${kindColor(b.kind)}"><title>${esc(`${label(start, data.unit)}: ${b.count} ${b.kind}${b.decisions ? `, ${b.decisions} decisions` : ""}`)}</title></rect>`);
  }
  // axis: the max count, and a few dates
  parts.push(`<text class="axis" x="${LEFT - 6}" y="${TOP + 10}" text-anchor="end">${max}</text>`);
  parts.push(`<line class="axis-line" x1="${LEFT}" x2="${width - RIGHT}" y1="${TOP + BAR_H + 0.5}" y2="${TOP + BAR_H + 0.5}"/>`);
  const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(plotW / 110))));
  for (let i = 0; i < n; i += every) {
    parts.push(`<text class="axis" x="${(LEFT + i * bw).toFixed(1)}" y="${TOP + BAR_H + 15}">${esc(label(data.origin + i * data.width, data.unit))}</text>`);
  }
  // the lane of points: decisions and supersede chains, at their time
  const laneTop = TOP + BAR_H + AXIS;
  parts.push(`<rect class="lane" x="${LEFT}" y="${laneTop}" width="${plotW}" height="${LANE_H}"/>`);
  const at = new Map<string, [number, number]>();
  for (const p of data.points) {
    const x = LEFT + ((p.t - data.origin) / data.width) * bw;
    const yy = laneTop + 10 + hash(p.id) * (LANE_H - 20);
    at.set(p.id, [x, yy]);
  }
  for (const p of data.points) {
    if (!p.superseded_by) continue;
    const from = at.get(p.id);
    const to = at.get(p.superseded_by);
    if (!from || !to) continue;
    const mx = (from[0] + to[0]) / 2;
    const my = Math.min(from[1], to[1]) - 18;
    parts.push(`<path class="link" data-from="${p.id}" data-to="${p.superseded_by}" d="M${from[0].toFixed(1)},${from[1].toFixed(1)} Q${mx.toFixed(1)},${my.toFixed(1)} ${to[0].toFixed(1)},${to[1].toFixed(1)}" marker-end="url(#arrow)"/>`);
  }
  for (const p of data.points) {
    const [x, yy] = at.get(p.id) ?? [0, 0];
    const cls = `pt${p.decision ? " decision" : ""} status-${p.status}`;
    const next = p.superseded_by ? ` → superseded by ${data.outside[p.superseded_by]?.title ?? `#${p.superseded_by}`}` : "";
    parts.push(`<circle class="${cls}" data-id="${p.id}" cx="${x.toFixed(1)}" cy="${yy.toFixed(1)}" r="${p.decision ? 5 : 4}" fill="${kindColor(p.kind)}"><title>${esc(`${p.title} (#${p.id}, ${p.status})${next}`)}</title></circle>`);
  }
  parts.push("</svg>");
  chart.innerHTML = parts.join("");
  chart.append(
    h("div", { class: "legend" },
      data.kinds.map((k) => h("span", {}, h("span", { class: "dot", style: `background:${kindColor(k)}` }), k)),
      h("span", {}, h("span", { class: "dot ring" }), "decision"),
      h("span", {}, h("span", { class: "dot faded" }), "superseded"),
      h("span", {}, "→ supersede link"),
      h("span", { class: "muted" }, ` ${data.total} documents, one bar per ${data.unit}; ${data.points.length} points${data.truncated ? " (newest shown)" : ""}`)),
  );
  const svg = chart.querySelector("svg");
  svg?.addEventListener("click", (e) => {
    const target = e.target as Element;
    const point = target.closest("[data-id]");
    if (point) {
      app.go(`doc/${point.getAttribute("data-id") ?? ""}`);
      return;
    }
    const bar = target.closest("[data-bucket]");
    if (bar) void showBucket(app, bucketList, data, Number(bar.getAttribute("data-bucket")), query);
  });
}

async function showBucket(app: App, box: HTMLElement, data: Timeline, i: number, query: Query): Promise<void> {
  const start = data.origin + i * data.width;
  box.replaceChildren(h("span", { class: "muted" }, "…"));
  try {
    const { documents } = await app.api.get<{ documents: Doc[] }>("/api/timeline/bucket", { ...query, start, end: start + data.width });
    box.replaceChildren(
      h("h2", {}, `${label(start, data.unit)} (${documents.length}${documents.length === 200 ? "+" : ""})`),
      h("ul", { class: "bucket-docs" }, documents.map((d) =>
        h("li", {}, h("span", { class: "dot", style: `background:${kindColor(d.kind)}` }), docLink(app, d.id, d.title), " ",
          d.status !== "active" ? badge(d.status, `status-${d.status}`) : null,
          h("span", { class: "muted" }, ` ${shortTime(d.created_at)} · ${d.collection}`)))));
  } catch (error) {
    box.replaceChildren(message((error as Error).message, "error"));
  }
}
