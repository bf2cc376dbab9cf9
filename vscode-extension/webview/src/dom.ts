/** A few DOM helpers: elements from tags and children, text always as text (never HTML). */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.replace(/^on/, ""), value);
    // through the CSSOM: the page's CSP refuses style attributes, not CSSOM writes
    else if (key === "style") el.style.cssText = String(value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** Text for use inside markup built as a string (SVG charts), escaped. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "";
  return iso.replace("T", " ").replace(/(\.\d+)?Z$/, "").slice(0, 16);
}

export function badge(text: string, kind = ""): HTMLElement {
  return h("span", { class: `badge ${kind}`.trim() }, text);
}

export function message(text: string, kind: "error" | "info" = "info"): HTMLElement {
  return h("div", { class: `message ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

/** Marks a view rendered (tests and the benchmark wait for it) and records how long it took. */
export function ready(el: HTMLElement, name: string, started: number): void {
  const ms = performance.now() - started;
  el.dataset["state"] = "ready";
  el.dataset["ms"] = ms.toFixed(1);
  const w = window as unknown as { __nbTimings?: Record<string, number> };
  (w.__nbTimings ??= {})[name] = ms;
}
