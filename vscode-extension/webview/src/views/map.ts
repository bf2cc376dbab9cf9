/** Where notes sit in the code: a treemap of directories and files and, beside it, the files
 * with notes, the most first. Files with notes get most of the area (sized by their notes) and
 * a colour as deep as their count; files that only commits touched share the rest by their
 * commits, grey and unlabelled when small. Files with stale anchors are outlined. A file
 * lists its anchors, each opening the code. */

import { type App, docLink } from "../app";
import { badge, h, message, ready } from "../dom";
import type { MapFile } from "../types";

interface Node {
  name: string;
  path: string;
  children: Map<string, Node>;
  file: MapFile | null;
  weight: number;
  notes: number;
  stale: number;
}

interface Box {
  node: Node;
  x: number;
  y: number;
  w: number;
  h: number;
}

const HEADER = 18;
const PAD = 3;
/** The share of the area files with notes get when some files have commits only. */
const NOTED_SHARE = 0.65;
/** Shades of the note colour. */
const LEVELS = 4;

/** A file's box weight: its notes, scaled so that the files with notes fill NOTED_SHARE of
 * the map, plus its commits. */
export function weigher(files: MapFile[]): (f: MapFile) => number {
  const notes = files.reduce((s, f) => s + f.notes, 0);
  const commits = files.reduce((s, f) => s + f.commits, 0);
  if (notes === 0 || commits === 0) return (f) => f.notes + f.commits;
  const perNote = (commits * NOTED_SHARE) / (1 - NOTED_SHARE) / notes;
  return (f) => f.notes * perNote + f.commits;
}

/** The shade of a file with `notes` notes (1..LEVELS; the most notes the deepest), 0 for none. */
export function shade(notes: number, most: number): number {
  if (notes <= 0) return 0;
  const levels = Math.min(LEVELS, most);
  return LEVELS - levels + Math.max(1, Math.ceil((notes / most) * levels));
}

/** The note counts each used shade stands for, as the legend names them ("1", "4–5"). */
export function shadeRanges(most: number): [number, string][] {
  const levels = Math.min(LEVELS, most);
  const out: [number, string][] = [];
  for (let level = 1; level <= levels; level++) {
    const lo = Math.floor(((level - 1) * most) / levels) + 1;
    const hi = Math.floor((level * most) / levels);
    out.push([LEVELS - levels + level, lo === hi ? `${lo}` : `${lo}–${hi}`]);
  }
  return out;
}

export function tree(files: MapFile[], weightOf: (f: MapFile) => number): Node {
  const root: Node = { name: "", path: "", children: new Map(), file: null, weight: 0, notes: 0, stale: 0 };
  for (const f of files) {
    const parts = f.path.split("/");
    let node = root;
    parts.forEach((part, i) => {
      let child = node.children.get(part);
      if (!child) {
        child = { name: part, path: parts.slice(0, i + 1).join("/"), children: new Map(), file: null, weight: 0, notes: 0, stale: 0 };
        node.children.set(part, child);
      }
      child.weight += weightOf(f);
      child.notes += f.notes;
      child.stale += f.stale;
      if (i === parts.length - 1) child.file = f;
      node = child;
    });
    root.weight += weightOf(f);
    root.notes += f.notes;
    root.stale += f.stale;
  }
  return compress(root);
}

/** A directory with one child directory shows as one box: `src/app` instead of two. */
function compress(node: Node): Node {
  for (const [key, child] of node.children) node.children.set(key, compress(child));
  if (node.file === null && node.children.size === 1 && node.name !== "") {
    const only = [...node.children.values()][0] as Node;
    if (only.file === null) return { ...only, name: `${node.name}/${only.name}` };
  }
  return node;
}

function worst(row: number[], side: number): number {
  const sum = row.reduce((a, b) => a + b, 0);
  const max = Math.max(...row);
  const min = Math.min(...row);
  return Math.max((side * side * max) / (sum * sum), (sum * sum) / (side * side * min));
}

/** Squarified treemap of `nodes` (weights > 0) in the rectangle. */
export function squarify(nodes: Node[], x: number, y: number, w: number, h: number): Box[] {
  const sorted = [...nodes].sort((a, b) => b.weight - a.weight);
  const total = sorted.reduce((s, n) => s + n.weight, 0);
  if (total <= 0 || w <= 0 || h <= 0) return [];
  const scale = (w * h) / total;
  const out: Box[] = [];
  let row: Node[] = [];
  const areas = (list: Node[]): number[] => list.map((n) => n.weight * scale);
  const place = (): void => {
    const a = areas(row);
    const sum = a.reduce((s, v) => s + v, 0);
    if (w >= h) {
      const cw = sum / h;
      let cy = y;
      row.forEach((node, i) => {
        const ch = (a[i] ?? 0) / cw;
        out.push({ node, x, y: cy, w: cw, h: ch });
        cy += ch;
      });
      x += cw;
      w -= cw;
    } else {
      const rh = sum / w;
      let cx = x;
      row.forEach((node, i) => {
        const rw = (a[i] ?? 0) / rh;
        out.push({ node, x: cx, y, w: rw, h: rh });
        cx += rw;
      });
      y += rh;
      h -= rh;
    }
    row = [];
  };
  for (const node of sorted) {
    const side = Math.min(w, h);
    if (row.length === 0 || worst(areas([...row, node]), side) <= worst(areas(row), side)) row.push(node);
    else {
      place();
      row.push(node);
    }
  }
  if (row.length) place();
  return out;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function describe(f: MapFile, commits: boolean): string {
  return `${f.path}\n${plural(f.notes, "note")}, ${plural(f.anchors, "anchor")}${f.stale ? ` (${f.stale} stale)` : ""}${commits ? `, ${plural(f.commits, "commit")}` : ""}`;
}

export async function mapView(app: App, root: HTMLElement): Promise<void> {
  const started = performance.now();
  const data = await app.api.get<{ commits: boolean; files: MapFile[]; root: string }>("/api/map");
  const files = data.files.filter((f) => f.notes + f.commits > 0);
  const noted = files.filter((f) => f.notes > 0).sort((a, b) => b.notes - a.notes || a.path.localeCompare(b.path));
  const notes = noted.reduce((s, f) => s + f.notes, 0);
  const most = noted[0]?.notes ?? 0;
  const staleFiles = files.filter((f) => f.stale > 0).length;
  const commitsOnly = files.length - noted.length;
  root.append(
    h("h1", {}, "Map"),
    h("p", { class: "muted map-summary" },
      `${plural(noted.length, "file")} with notes (${plural(notes, "note")})`,
      commitsOnly ? `, ${commitsOnly} more with commits only` : "",
      ". Box size: notes first, then commits; colour: notes. ",
      staleFiles ? badge(`${staleFiles} with stale anchors`, "anchor-changed") : "No stale anchors."),
  );
  if (files.length === 0) {
    root.append(message("No note is anchored to code yet (anchor one from the editor, or `nano-brain anchor`)."));
    ready(root, "map", started);
    return;
  }
  root.append(h("div", { class: "legend map-legend" },
    h("span", {}, "notes per file:"),
    shadeRanges(most).map(([level, text]) => h("span", {}, h("span", { class: `swatch notes-${level}` }), text)),
    commitsOnly ? h("span", {}, h("span", { class: "swatch plain" }), "none (commits only)") : null,
    staleFiles ? h("span", {}, h("span", { class: "swatch stale" }), "stale anchors") : null));
  const canvas = h("div", { class: "treemap", id: "treemap" });
  const panel = h("div", { class: "file-panel", id: "file-panel" }, h("p", { class: "muted" }, "Choose a file (here or on the map) to list its notes and open the code."));
  const list = h("ol", { class: "map-files", id: "map-files" });
  root.append(h("div", { class: "map-layout" }, canvas,
    h("aside", { class: "map-side" }, h("h2", {}, `Files with notes (${noted.length})`), list, panel)));

  const tiles = new Map<string, HTMLElement>();
  const choose = (path: string): void => {
    tiles.forEach((el, p) => el.classList.toggle("selected", p === path));
    list.querySelectorAll<HTMLElement>("li").forEach((li) => li.classList.toggle("selected", li.dataset["path"] === path));
    void showFile(app, panel, path, data.root);
  };
  if (noted.length === 0) list.replaceWith(h("p", { class: "muted" }, "No note is anchored to code yet (anchor one from the editor, or `nano-brain anchor`)."));
  for (const f of noted) {
    const slash = f.path.lastIndexOf("/");
    list.append(h("li", { "data-path": f.path, "data-notes": f.notes },
      h("button", { class: "file-row", title: describe(f, data.commits), onclick: () => choose(f.path) },
        h("span", { class: "file-name" }, h("span", { class: "muted" }, f.path.slice(0, slash + 1)), h("strong", {}, f.path.slice(slash + 1))),
        h("span", { class: "file-counts" },
          badge(plural(f.notes, "note"), `notes notes-${shade(f.notes, most)}`),
          f.stale ? badge(`${f.stale} stale`, "anchor-changed") : null))));
  }

  const width = Math.max(360, canvas.clientWidth || 800);
  const height = Math.max(320, Math.min(560, Math.round(width * 0.66)));
  canvas.style.height = `${height}px`;
  const top = tree(files, weigher(files));
  const draw = (node: Node, x: number, y: number, w: number, h0: number, depth: number): void => {
    for (const box of squarify([...node.children.values()], x, y, w, h0)) {
      const n = box.node;
      const f = n.children.size === 0 ? n.file : null;
      const level = f ? shade(f.notes, most) : 0;
      const cls = f ? `tm tm-file${level ? ` noted notes-${level}` : ""}` : "tm tm-dir";
      const label = f && f.notes > 0
        ? h("span", { class: "tm-label" }, h("strong", {}, n.name), h("span", { class: "tm-count" }, plural(f.notes, "note"), f.stale ? ` · ⚠ ${f.stale} stale` : ""))
        : box.w > 56 && box.h > 16
          ? h("span", { class: "tm-label" }, n.name, !f && n.notes ? ` · ${plural(n.notes, "note")}` : "", !f && n.stale ? ` ⚠${n.stale}` : "")
          : null;
      const el = h("div", {
        class: `${cls}${n.stale ? " stale" : ""}`,
        style: `left:${box.x.toFixed(1)}px;top:${box.y.toFixed(1)}px;width:${Math.max(0, box.w - 1).toFixed(1)}px;height:${Math.max(0, box.h - 1).toFixed(1)}px`,
        title: f ? describe(f, data.commits) : `${n.path}/\n${plural(n.notes, "note")}${n.stale ? ` (${n.stale} stale anchors)` : ""}`,
        "data-path": n.path,
        "data-notes": f ? f.notes : n.notes,
      }, label);
      canvas.append(el);
      if (f) {
        tiles.set(n.path, el);
        el.addEventListener("click", () => choose(n.path));
      } else if (box.w > 30 && box.h > HEADER + 12 && depth < 12) {
        draw(n, box.x + PAD, box.y + HEADER, box.w - 2 * PAD, box.h - HEADER - PAD, depth + 1);
      }
    }
  };
  draw(top, 0, 0, width, height, 0);
  ready(root, "map", started);
}

async function showFile(app: App, panel: HTMLElement, path: string, root: string): Promise<void> {
  panel.replaceChildren(h("span", { class: "muted" }, "…"));
  try {
    const data = await app.api.get<{ anchors: { id: string; title: string; status: string; symbol: string; state: string; line: number | null }[] }>("/api/map/file", { path });
    panel.replaceChildren(
      h("h2", {}, h("button", { class: "link", "data-action": "open-code", onclick: () => app.api.transport.openFile(root, path, null) }, path)),
      data.anchors.length === 0 ? h("p", { class: "muted" }, "No note is anchored here (commits only).") : "",
      h("ul", { class: "anchors" }, data.anchors.map((a) =>
        h("li", { "data-state": a.state },
          badge(a.state === "ok" ? "current" : `stale: ${a.state}`, `anchor-${a.state}`), " ",
          docLink(app, a.id, a.title), " ",
          h("button", { class: "link", "data-action": "open-code", onclick: () => app.api.transport.openFile(root, path, a.line) },
            `${a.symbol.split("::").pop() ?? a.symbol}${a.line ? `:${a.line}` : ""}`)))));
  } catch (error) {
    panel.replaceChildren(message((error as Error).message, "error"));
  }
}
