/** Boot: pick the transport, get the page token (browser), load the workspace info, route views. */

import { Api, BrowserTransport, inWebview, redeemCode, WebviewTransport, type Transport } from "./api";
import type { App } from "./app";
import { clear, h, message } from "./dom";
import type { Info } from "./types";
import { documentView } from "./views/document";
import { logView } from "./views/log";
import { mapView } from "./views/map";
import { reviewView } from "./views/review";
import { searchView } from "./views/search";
import { timelineView } from "./views/timeline";

type View = (app: App, root: HTMLElement, arg: string) => void | Promise<void>;

const TABS: [string, string, View][] = [
  ["search", "Search", searchView],
  ["timeline", "Timeline", timelineView],
  ["review", "Review", reviewView],
  ["map", "Map", mapView],
  ["log", "Log", logView],
];

async function transport(): Promise<Transport | undefined> {
  if (inWebview()) return new WebviewTransport();
  // The link `nano-brain ui` opened carries a one-time code in its fragment: take it out of
  // the address bar and history before anything else, then trade it for the token.
  const match = /^#code=([A-Za-z0-9_-]{1,200})$/.exec(location.hash);
  if (match?.[1] !== undefined) {
    history.replaceState(null, "", `${location.pathname}#/search`);
    return new BrowserTransport(await redeemCode(match[1]));
  }
  return undefined;
}

function signIn(root: HTMLElement, why: string): void {
  clear(root);
  // No token to paste: the page's token is minted for one page by its server, and the
  // workspace's MCP token is not accepted here.
  root.append(
    h("main", { class: "signin" },
      h("h1", {}, "nano-brain"),
      message(why, "error"),
      h("p", {}, "Run ", h("code", {}, "nano-brain ui"), " again for a fresh link (a link works once).")),
  );
}

async function start(root: HTMLElement, chosen: Transport): Promise<void> {
  const api = new Api(chosen);
  let info: Info;
  try {
    info = await api.get<Info>("/api/info");
  } catch (error) {
    if (!chosen.inEditor) signIn(root, (error as Error).message);
    else root.replaceChildren(message((error as Error).message, "error"));
    return;
  }
  clear(root);
  const toasts = h("div", { class: "toasts", "aria-live": "polite" });
  const nav = h("nav", { class: "tabs" });
  const main = h("main", { id: "view" });
  const header = h("header", {},
    h("span", { class: "brand" }, "nano-brain"),
    h("span", { class: "workspace", title: info.workspace }, info.workspace),
    nav);
  root.append(header, main, toasts);

  const app: App = {
    api,
    info,
    go: (route: string) => {
      if (location.hash === `#/${route}`) void render();
      else location.hash = `#/${route}`;
    },
    toast: (text: string, kind: "info" | "error" = "info") => {
      const el = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
      toasts.append(el);
      setTimeout(() => el.remove(), kind === "error" ? 8000 : 4000);
    },
  };
  for (const [name, label] of TABS) {
    nav.append(h("a", { href: `#/${name}`, "data-tab": name }, label));
  }

  let generation = 0;
  const render = async (): Promise<void> => {
    const route = location.hash.replace(/^#\/?/, "") || "search";
    const [name = "search", ...rest] = route.split("/");
    const arg = decodeURIComponent(rest.join("/"));
    nav.querySelectorAll("a").forEach((a) => a.classList.toggle("active", a.dataset["tab"] === name));
    const mine = ++generation;
    const root = h("section", { class: `view view-${name}`, id: name === "doc" ? "document" : name });
    main.replaceChildren(root);
    const view = name === "doc" ? documentView : TABS.find(([n]) => n === name)?.[2];
    if (!view) {
      root.append(message(`No view named “${name}”.`, "error"));
      return;
    }
    try {
      await view(app, root, arg);
    } catch (error) {
      if (mine === generation) root.append(message((error as Error).message, "error"));
    }
  };
  window.addEventListener("hashchange", () => void render());
  await render();
}

async function boot(): Promise<void> {
  const root = document.getElementById("app") ?? document.body;
  try {
    const chosen = await transport();
    if (chosen === undefined) {
      signIn(root, "This page has no session: its link was already used, or the page was reloaded.");
      return;
    }
    await start(root, chosen);
  } catch (error) {
    signIn(root, (error as Error).message);
  }
}

void boot();
