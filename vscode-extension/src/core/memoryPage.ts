/**
 * The memory page in a webview, the parts that need no `vscode`: what `nano-brain ui --json`
 * announced, which requests the page may have the extension make, which files it may open,
 * and the webview's HTML (the server's own bundle, inlined under a nonce).
 */

import { randomBytes } from "node:crypto";

export interface UiEndpoint {
  url: string;
  code: string;
  pid: number;
  reused: boolean;
}

/** The line `nano-brain ui --no-open --json` prints when ready (undefined if it is not one). */
export function parseUiEndpoint(line: string): UiEndpoint | undefined {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof data !== "object" || data === null) return undefined;
  const { url, open_url: openUrl, pid, reused } = data as Record<string, unknown>;
  if (typeof url !== "string" || typeof openUrl !== "string" || typeof pid !== "number") return undefined;
  if (!/^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}\/$/.test(url)) return undefined;
  const code = /#code=([A-Za-z0-9_-]{1,200})$/.exec(openUrl)?.[1];
  if (code === undefined || !openUrl.startsWith(url)) return undefined;
  return { url, code, pid, reused: reused === true };
}

/** The page may ask for the page server's API only: one path under /api/, no way out. */
export function isApiRequest(method: unknown, path: unknown): path is string {
  if (method !== "GET" && method !== "POST") return false;
  if (typeof path !== "string" || path.length > 8192) return false;
  if (!path.startsWith("/api/") || path.startsWith("/api/session")) return false;
  const [pathname = ""] = path.split("?", 1);
  return !pathname.split("/").some((part) => part === ".." || part === ".") && !/[\\#\s]/.test(pathname) && !pathname.includes("%2");
}

/** A workspace-relative path the page asked to open, if it stays inside the folder. */
export function workspaceRelative(path: unknown): string | undefined {
  if (typeof path !== "string" || path === "" || path.length > 4096) return undefined;
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)) return undefined;
  const parts = path.split(/[\\/]/);
  if (parts.some((p) => p === ".." || p === "")) return undefined;
  return parts.join("/");
}

/**
 * A CSP nonce: 192 bits from the operating system's CSPRNG, base64url (32 characters). A nonce
 * an attacker can predict (Math.random is not a secure generator) lets injected script run.
 */
export function nonce(): string {
  return randomBytes(24).toString("base64url");
}

/** The webview document: the bundle's script and stylesheet inline, nothing else allowed. */
export function webviewHtml(script: string, css: string, nonceValue: string, cspSource: string): string {
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonceValue}'`,
    `style-src ${cspSource} 'nonce-${nonceValue}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    // default-src does not cover these: no <base> may redirect relative URLs, no form post
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  // the bundle is ours, but an inline script must never be able to close its own tag
  const safeScript = script.replace(/<\/(script)/gi, "<\\/$1");
  const safeCss = css.replace(/<\/(style)/gi, "<\\/$1");
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<style nonce="${nonceValue}">${safeCss}</style>`,
    "</head><body>",
    '<div id="app"><p>Loading…</p></div>',
    `<script nonce="${nonceValue}">${safeScript}</script>`,
    "</body></html>",
  ].join("\n");
}
