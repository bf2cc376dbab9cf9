/** Where decisions sit in the code: a treemap of directories and files, each sized by the
 * notes anchored in it (and the commits that touched it, once commits are memory); files with
 * stale anchors are marked. A file lists its anchors, each opening the code. */

import { type App, docLink } from "../app";
import { badge, h, message, ready } from "../dom";
import type { MapFile } from "../types";

interface Node {
  name: string;
  path: string;
  children: Map<string, Node>;
  file: MapFile | null;
  weight: number;
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

export function weightOf(f: MapFile): number {
  return f.notes + f.commits;
}

export function tree(files: MapFile[]): Node {
  const root: Node = { name: "", path: "", children: new Map(), file: null, weight: 0, stale: 0 };
  for (const f of files) {
    const parts = f.path.split("/");
    let node = root;
    parts.forEach((part, i) => {
      let child = node.children.get(part);
      if (!child) {
        child = { name: part, path: parts.slice(0, i + 1).join("/"), children: new Map(), file: null, weight: 0, stale: 0 };
        node.children.set(part, child);
      }
      child.weight += weightOf(f);
      child.stale += f.stale;
      if (i === parts.length - 1) child.file = f;
      node = child;
    });
    root.weight += weightOf(f);
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

export async function mapView(app: App, root: HTMLElement): Promise<void> {
  const started = performance.now();
  const data = await app.api.get<{ commits: boolean; files: MapFile[]; root: string }>("/api/map");
  const files = data.files.filter((f) => weightOf(f) > 0);
  const staleFiles = files.filter((f) => f.stale > 0).length;
  root.append(
    h("h1", {}, "Map"),
    h("p", { class: "muted" },
      `${files.length} files carry notes${data.commits ? " or commits" : ""}; box size: anchored notes${data.commits ? " + commits" : ""}. `,
      staleFiles ? badge(`${staleFiles} with stale anchors`, "anchor-changed") : "no stale anchors"),
  );
  if (files.length === 0) {
    root.append(message("No note is anchored to code yet (anchor one from the editor, or `nano-brain anchor`)."));
    ready(root, "map", started);
    return;
  }
  const canvas = h("div", { class: "treemap", id: "treemap" });
  const panel = h("div", { class: "file-panel", id: "file-panel" });
  root.append(canvas, panel);
  const width = Math.max(480, canvas.clientWidth || 900);
  const height = Math.max(360, Math.min(720, Math.round(width * 0.55)));
  canvas.style.height = `${height}px`;
  const top = tree(files);
  const draw = (node: Node, x: number, y: number, w: number, h0: number, depth: number): void => {
    for (const box of squarify([...node.children.values()], x, y, w, h0)) {
      const n = box.node;
      const isFile = n.file !== null && n.children.size === 0;
      const el = h("div", {
        class: `tm ${isFile ? "tm-file" : "tm-dir"}${n.stale ? " stale" : ""}`,
        style: `left:${box.x.toFixed(1)}px;top:${box.y.toFixed(1)}px;width:${Math.max(0, box.w - 1).toFixed(1)}px;height:${Math.max(0, box.h - 1).toFixed(1)}px`,
        title: `${n.path}: ${n.file ? `${n.file.notes} notes, ${n.file.anchors} anchors, ${n.file.stale} stale${data.commits ? `, ${n.file.commits} commits` : ""}` : `${n.weight}`}`,
        "data-path": n.path,
      }, box.w > 40 && box.h > 14 ? h("span", { class: "tm-label" }, n.name, n.stale ? ` ⚠${n.stale}` : "") : null);
      canvas.append(el);
      if (isFile) {
        el.addEventListener("click", () => void showFile(app, panel, n.path, data.root));
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
