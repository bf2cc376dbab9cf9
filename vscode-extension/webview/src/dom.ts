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

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element, built as `h` builds HTML ones: attributes set one by one, text as text
 * nodes (charts never go through markup, so memory text in them cannot become markup). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | undefined> = {},
  ...children: (Child | Child[])[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined) el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

let tip: HTMLElement | null = null;
let hidden: { owner: Element; title: Element } | null = null;
let tipsWired = false;

function placeTip(x: number, y: number): void {
  if (!tip) return;
  const gap = 14;
  const w = tip.offsetWidth;
  const h0 = tip.offsetHeight;
  const left = x + gap + w > window.innerWidth ? Math.max(4, x - gap - w) : x + gap;
  const top = y + gap + h0 > window.innerHeight ? Math.max(4, y - gap - h0) : y + gap;
  tip.style.left = `${left}px`;
  tip.style.top = `${top}px`;
}

function hideTip(): void {
  if (tip) tip.hidden = true;
  if (hidden) hidden.owner.prepend(hidden.title);
  hidden = null;
}

function showTip(owner: Element, title: Element, x: number, y: number): void {
  hideTip();
  tip ??= document.body.appendChild(h("div", { class: "tip", id: "chart-tip", role: "tooltip", hidden: true }));
  const [first = "", ...rest] = (title.textContent ?? "").split("\n");
  tip.replaceChildren(h("strong", {}, first), rest.length ? `\n${rest.join("\n")}` : "");
  tip.hidden = false;
  // the SVG <title> names the mark for screen readers; while the page's own tooltip shows,
  // it is taken out so the browser's slower tooltip does not repeat it
  title.remove();
  hidden = { owner, title };
  placeTip(x, y);
}

/** Shows the <title> of the marks under the pointer (or focused) in `root` at once, in the
 * page's own tooltip. */
export function tooltips(root: Element): void {
  if (!tipsWired) {
    tipsWired = true;
    window.addEventListener("hashchange", hideTip);
  }
  const markOf = (target: EventTarget | null): Element | null => {
    const el = target instanceof Element ? target.closest("[data-tip]") : null;
    return el && root.contains(el) ? el : null;
  };
  const titleOf = (el: Element): Element | null => (hidden?.owner === el ? hidden.title : el.querySelector(":scope > title"));
  root.addEventListener("pointerover", (e) => {
    const mark = markOf(e.target);
    const title = mark && titleOf(mark);
    if (mark && title) showTip(mark, title, (e as PointerEvent).clientX, (e as PointerEvent).clientY);
  });
  root.addEventListener("pointermove", (e) => {
    if (hidden && markOf(e.target) === hidden.owner) placeTip((e as PointerEvent).clientX, (e as PointerEvent).clientY);
  });
  root.addEventListener("pointerout", (e) => {
    const to = markOf((e as PointerEvent).relatedTarget);
    if (hidden && to !== hidden.owner) hideTip();
  });
  root.addEventListener("focusin", (e) => {
    const mark = markOf(e.target);
    const title = mark && titleOf(mark);
    if (!mark || !title) return;
    const r = mark.getBoundingClientRect();
    showTip(mark, title, r.right, r.bottom);
  });
  root.addEventListener("focusout", hideTip);
  root.addEventListener("click", hideTip);
}

export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "";
  return iso.replace("T", " ").replace(/(\.\d+)?Z$/, "").slice(0, 16);
}

/** A document's `#id`, kept apart from the title before it and the chips after it. */
export function docId(id: string): HTMLElement {
  return h("span", { class: "doc-id" }, `#${id}`);
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
