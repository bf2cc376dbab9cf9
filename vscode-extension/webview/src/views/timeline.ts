/** Documents over time per kind (stacked bars on a y-axis of counts) and, below them, the
 * decisions (diamonds) and supersede chains (arrows from a document to its successor), each
 * chain on one row read from left to right. Every mark says what, when and how many when the
 * pointer is on it; a bar lists its documents, a point opens its document. The chart is built
 * as DOM nodes: memory text only ever lands in text nodes. */

import type { Query } from "../api";
import { type App, docLink, kindColor } from "../app";
import { badge, h, message, ready, shortTime, svg, tooltips } from "../dom";
import type { Doc, Timeline } from "../types";

const BAR_H = 170;
const LEFT = 60;
const RIGHT = 16;
const TOP = 12;
const AXIS = 26;
/** A row of points in the lane; chains and decisions are packed into at most MAX_ROWS. */
const ROW = 24;
const MAX_ROWS = 12;
/** Room above the rows for the lane's caption. */
const LANE_CAPTION = 22;
/** A circle's radius; a diamond reaches R + 2 from its centre. */
const R = 5;

type Point = Timeline["points"][number];

let lastQuery: Query = {};

function isoOf(t: number): string {
  return new Date(t * 1000).toISOString();
}

/** The x-axis label of a bucket's start. */
function label(t: number, unit: string): string {
  const iso = isoOf(t);
  return unit.includes("minute") ? iso.slice(11, 16) : unit.includes("hour") ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}h` : unit === "year" ? iso.slice(0, 4) : iso.slice(0, 10);
}

/** What a bucket covers, in words: "2024-03-05", "week of 2024-03-05", a range otherwise. */
export function period(start: number, width: number, unit: string): string {
  const day = (t: number): string => isoOf(t).slice(0, 10);
  if (unit === "day") return day(start);
  if (unit === "week") return `week of ${day(start)}`;
  if (width < 86400) return `${shortTime(isoOf(start))}–${shortTime(isoOf(start + width)).slice(11)}`;
  return `${day(start)} – ${day(start + width - 1)}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The y-axis's ticks for counts up to `max`: 0 and at least two round steps above it. */
export function ticks(max: number): number[] {
  const raw = Math.max(1, max) / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude);
  const top = Math.max(2 * step, Math.ceil(max / step) * step);
  const out: number[] = [];
  for (let v = 0; v <= top; v += step) out.push(v);
  return out;
}

/** Characters of a title written beside its chain or decision. */
const LABEL_CHARS = 34;
/** About how wide a character of a label is (11px sans-serif). */
const CHAR_W = 6.4;

function clip(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

export interface Lane {
  /** The row of each point. */
  row: Map<string, number>;
  /** Per chain (or lone decision): the point named beside it, and on which side. */
  labels: { id: string; text: string; side: "right" | "left"; x: number }[];
  rows: number;
}

/** Rows of the lane: the documents of a supersede chain share a row; chains and lone
 * decisions go to the first row free at their left end, each with its newest title beside
 * it. When that needs more than MAX_ROWS rows, the titles are left out (a tooltip still has
 * them) and a chain past MAX_ROWS goes to the row that frees up first. */
export function lane(points: Point[], xOf: (p: Point) => number, right: number): Lane {
  const parent = new Map<string, string>(points.map((p) => [p.id, p.id]));
  const find = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r) ?? r;
    return r;
  };
  for (const p of points) {
    if (p.superseded_by && parent.has(p.superseded_by)) parent.set(find(p.id), find(p.superseded_by));
  }
  const groups = new Map<string, { lo: number; hi: number; ids: string[]; newest: Point }>();
  for (const p of points) {
    const key = find(p.id);
    const x = xOf(p);
    const g = groups.get(key) ?? { lo: x, hi: x, ids: [], newest: p };
    g.lo = Math.min(g.lo, x);
    g.hi = Math.max(g.hi, x);
    if (p.t >= g.newest.t) g.newest = p;
    g.ids.push(p.id);
    groups.set(key, g);
  }
  const ordered = [...groups.values()].sort((a, b) => a.lo - b.lo);
  const pack = (withLabels: boolean, limit: number): Lane | null => {
    const ends: number[] = [];
    const out: Lane = { row: new Map(), labels: [], rows: 0 };
    for (const g of ordered) {
      let lo = g.lo - 2 * R;
      let hi = g.hi + 2 * R;
      let side: "right" | "left" = "right";
      const text = clip(g.newest.title, LABEL_CHARS) + (g.ids.length > 1 ? ` (chain of ${g.ids.length})` : "");
      if (withLabels) {
        const w = text.length * CHAR_W + 8;
        if (hi + w <= right) hi += w;
        else {
          lo -= w;
          side = "left";
        }
      }
      let row = ends.findIndex((end) => end <= lo);
      if (row === -1 && ends.length < limit) row = ends.push(hi) - 1;
      else if (row === -1) {
        if (withLabels) return null;
        row = ends.indexOf(Math.min(...ends));
      }
      ends[row] = Math.max(ends[row] ?? hi, hi);
      for (const id of g.ids) out.row.set(id, row);
      if (withLabels) out.labels.push({ id: g.newest.id, text, side, x: side === "right" ? g.hi + R + 5 : g.lo - R - 5 });
    }
    out.rows = Math.max(1, ends.length);
    return out;
  };
  return pack(true, MAX_ROWS) ?? (pack(false, MAX_ROWS) as Lane);
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
  tooltips(chart);

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

/** A diamond centred on (x, y). */
function diamond(x: number, y: number, r: number): string {
  return `M${x.toFixed(1)},${(y - r).toFixed(1)}L${(x + r).toFixed(1)},${y.toFixed(1)}L${x.toFixed(1)},${(y + r).toFixed(1)}L${(x - r).toFixed(1)},${y.toFixed(1)}Z`;
}

/** A supersede link: an arc over the row from the old document to its successor, its ends
 * clear of both marks so that the arrowhead shows. */
function arc(from: [number, number], to: [number, number], rFrom: number, rTo: number): string {
  const dx = to[0] - from[0];
  const mx = (from[0] + to[0]) / 2;
  const my = Math.min(from[1], to[1]) - Math.min(9, Math.abs(dx) / 3 + 3);
  const toward = (p: [number, number], r: number): [number, number] => {
    const vx = mx - p[0];
    const vy = my - p[1];
    const len = Math.hypot(vx, vy) || 1;
    return [p[0] + (vx / len) * r, p[1] + (vy / len) * r];
  };
  const a = toward(from, rFrom + 1);
  const b = toward(to, rTo + 2);
  return `M${a[0].toFixed(1)},${a[1].toFixed(1)} Q${mx.toFixed(1)},${my.toFixed(1)} ${b[0].toFixed(1)},${b[1].toFixed(1)}`;
}

function arrowMarker(): SVGMarkerElement {
  return svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
    svg("path", { d: "M0,0L10,5L0,10z", class: "arrow" }));
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
  const scale = ticks(Math.max(1, ...totals.values()));
  const top = scale[scale.length - 1] ?? 1;
  const y = (count: number): number => (count / top) * BAR_H;
  const xOf = (p: Point): number => LEFT + ((p.t - data.origin) / data.width) * bw;
  const rowsOf = lane(data.points, xOf, width - RIGHT - 4);
  const laneTop = TOP + BAR_H + AXIS;
  const laneH = data.points.length ? LANE_CAPTION + rowsOf.rows * ROW + 4 : 0;
  const height = laneTop + laneH + 4;

  const chartSvg = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": "Documents over time" },
    svg("defs", {}, arrowMarker()));

  // the y-axis: round counts with grid lines, and what they count
  const grid = svg("g", { class: "grid-lines" });
  const yAxis = svg("g", { class: "y-axis" });
  for (const v of scale) {
    const yy = TOP + BAR_H - y(v) + 0.5;
    grid.append(svg("line", { class: v === 0 ? "axis-line" : "grid", x1: LEFT, x2: width - RIGHT, y1: yy.toFixed(1), y2: yy.toFixed(1) }));
    yAxis.append(svg("text", { class: "axis", x: LEFT - 6, y: (yy + 4).toFixed(1), "text-anchor": "end" }, String(v)));
  }
  chartSvg.append(grid, yAxis,
    svg("text", { class: "axis y-axis-title", transform: `translate(14 ${TOP + BAR_H / 2}) rotate(-90)`, "text-anchor": "middle" }, `documents per ${data.unit}`));

  // stacked bars, one stack per bucket in the order of the kinds
  const stacked = new Map<number, number>();
  const order = new Map(data.kinds.map((k, i) => [k, i]));
  const sorted = [...data.buckets].sort((a, b) => a.i - b.i || (order.get(a.kind) ?? 9) - (order.get(b.kind) ?? 9));
  const bars = svg("g", { class: "bars" });
  for (const b of sorted) {
    const below = stacked.get(b.i) ?? 0;
    stacked.set(b.i, below + b.count);
    const x = LEFT + b.i * bw;
    const h0 = y(b.count);
    const barTop = TOP + BAR_H - y(below) - h0;
    const start = data.origin + b.i * data.width;
    const total = totals.get(b.i) ?? b.count;
    const tip = `${period(start, data.width, data.unit)}: ${plural(b.count, b.kind)}${b.decisions ? ` (${plural(b.decisions, "decision")})` : ""}` +
      `${total > b.count ? `, ${plural(total, "document")} in all` : ""}. Click to list them.`;
    bars.append(svg("rect", {
      class: "bar", "data-bucket": b.i, "data-kind": b.kind, "data-count": b.count, "data-tip": "",
      x: (x + 0.5).toFixed(1), y: barTop.toFixed(1), width: Math.max(1, bw - 1).toFixed(1), height: Math.max(0.5, h0).toFixed(1), fill: kindColor(b.kind),
    }, svg("title", {}, tip)));
  }
  chartSvg.append(bars);
  const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(plotW / 110))));
  for (let i = 0; i < n; i += every) {
    const x = LEFT + i * bw;
    if (x + 70 > width) break;
    chartSvg.append(
      svg("line", { class: "axis-line", x1: x.toFixed(1), x2: x.toFixed(1), y1: TOP + BAR_H, y2: TOP + BAR_H + 4 }),
      svg("text", { class: "axis", x: x.toFixed(1), y: TOP + BAR_H + 17 }, label(data.origin + i * data.width, data.unit)));
  }

  // the lane: decisions and supersede chains at their time, a chain on one row
  if (data.points.length) {
    chartSvg.append(
      svg("rect", { class: "lane", x: LEFT, y: laneTop, width: plotW, height: laneH }),
      svg("text", { class: "axis lane-title", x: LEFT + 8, y: laneTop + 15 }, "Decisions and supersede chains (a chain on one row, oldest on the left)"));
    const byId = new Map(data.points.map((p) => [p.id, p]));
    const at = new Map<string, [number, number]>();
    for (const p of data.points) at.set(p.id, [xOf(p), laneTop + LANE_CAPTION + (rowsOf.row.get(p.id) ?? 0) * ROW + ROW / 2]);
    const radius = (p: Point | undefined): number => (p?.decision ? R + 2 : R);
    const titleOf = (id: string): string => byId.get(id)?.title ?? data.outside[id]?.title ?? `#${id}`;
    const replaces = new Map<string, string[]>();
    for (const p of data.points) if (p.superseded_by) replaces.set(p.superseded_by, [...(replaces.get(p.superseded_by) ?? []), p.id]);
    const links = svg("g", { class: "links" });
    for (const p of data.points) {
      const from = at.get(p.id);
      const to = p.superseded_by ? at.get(p.superseded_by) : undefined;
      if (!from || !to || !p.superseded_by) continue;
      links.append(svg("path", { class: "link", "data-from": p.id, "data-to": p.superseded_by, d: arc(from, to, radius(p), radius(byId.get(p.superseded_by))), "marker-end": "url(#arrow)" }));
    }
    const marks = svg("g", { class: "points" });
    for (const p of data.points) {
      const [x, yy] = at.get(p.id) ?? [0, 0];
      const earlier = replaces.get(p.id) ?? [];
      const tip = [
        p.title,
        `${p.decision ? "decision" : p.kind} #${p.id} · ${p.status} · created ${shortTime(isoOf(p.t))}`,
        p.superseded_by ? `superseded by ${titleOf(p.superseded_by)}` : "",
        earlier.length ? `supersedes ${earlier.map(titleOf).join("; ")}` : "",
      ].filter(Boolean).join("\n");
      const attrs = { class: `pt${p.decision ? " decision mark-decision" : ""} status-${p.status}`, "data-id": p.id, "data-tip": "", tabindex: 0, role: "link" };
      marks.append(p.decision
        ? svg("path", { ...attrs, d: diamond(x, yy, R + 2) }, svg("title", {}, tip))
        : svg("circle", { ...attrs, cx: x.toFixed(1), cy: yy.toFixed(1), r: R, fill: kindColor(p.kind) }, svg("title", {}, tip)));
    }
    // each chain's newest title (or a lone decision's) beside it, when the rows have room
    const labels = svg("g", { class: "pt-labels" });
    for (const l of rowsOf.labels) {
      const yy = at.get(l.id)?.[1] ?? 0;
      labels.append(svg("text", { class: "pt-label", "data-id": l.id, x: l.x.toFixed(1), y: (yy + 4).toFixed(1), "text-anchor": l.side === "right" ? "start" : "end" }, l.text));
    }
    chartSvg.append(links, marks, labels);
  }

  chart.replaceChildren(chartSvg, legend(data));
  const open = (target: Element): boolean => {
    const point = target.closest("[data-id]");
    if (point) app.go(`doc/${point.getAttribute("data-id") ?? ""}`);
    return point !== null;
  };
  chartSvg.addEventListener("click", (e) => {
    const target = e.target as Element;
    if (open(target)) return;
    const bar = target.closest("[data-bucket]");
    if (bar) void showBucket(app, bucketList, data, Number(bar.getAttribute("data-bucket")), query);
  });
  chartSvg.addEventListener("keydown", (e) => {
    if ((e.key === "Enter" || e.key === " ") && open(e.target as Element)) e.preventDefault();
  });
}

function swatch(cls: string, w: number, ...marks: SVGElement[]): SVGSVGElement {
  return svg("svg", { class: cls, width: w, height: 16, viewBox: `0 0 ${w} 16`, "aria-hidden": "true" }, ...marks);
}

function legend(data: Timeline): HTMLElement {
  return h("div", { class: "legend" },
    data.kinds.map((k) => h("span", {}, h("span", { class: "dot", style: `background:${kindColor(k)}` }), k)),
    h("span", {}, swatch("swatch-decision", 16, svg("path", { class: "mark-decision", d: diamond(8, 8, 6) })), "decision"),
    h("span", {}, swatch("swatch-faded", 16, svg("path", { class: "mark-decision faded", d: diamond(8, 8, 6) })), "superseded"),
    h("span", {}, swatch("swatch-link", 36, svg("path", { class: "link", d: "M3,8 L32,8", "marker-end": "url(#arrow)" })), "supersede: old → new"),
    h("span", { class: "muted" }, `${data.total} documents, one bar per ${data.unit}; ${data.points.length} decisions and chain documents${data.truncated ? " (the newest)" : ""}. Point at a bar or a point for details.`));
}

async function showBucket(app: App, box: HTMLElement, data: Timeline, i: number, query: Query): Promise<void> {
  const start = data.origin + i * data.width;
  box.replaceChildren(h("span", { class: "muted" }, "…"));
  try {
    const { documents } = await app.api.get<{ documents: Doc[] }>("/api/timeline/bucket", { ...query, start, end: start + data.width });
    box.replaceChildren(
      h("h2", {}, `${period(start, data.width, data.unit)} (${documents.length}${documents.length === 200 ? "+" : ""})`),
      h("ul", { class: "bucket-docs" }, documents.map((d) =>
        h("li", {}, h("span", { class: "dot", style: `background:${kindColor(d.kind)}` }), docLink(app, d.id, d.title), " ",
          d.status !== "active" ? badge(d.status, `status-${d.status}`) : null,
          h("span", { class: "muted" }, ` ${shortTime(d.created_at)} · ${d.collection}`)))));
  } catch (error) {
    box.replaceChildren(message((error as Error).message, "error"));
  }
}
