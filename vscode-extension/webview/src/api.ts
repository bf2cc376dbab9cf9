/**
 * How the page reaches its server. In a browser: fetch to the page's own origin with the
 * page token as a bearer header (minted by the server for this page, held in memory only).
 * In the VS Code webview: messages to the extension, which makes the same requests with the
 * page token it holds.
 */

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | string[] | undefined | null>;

export interface Transport {
  request(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown>;
  /** Opens a workspace file at a line (the editor in VS Code, a vscode:// link elsewhere). */
  openFile(root: string, path: string, line: number | null): void;
  readonly inEditor: boolean;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "" || value === false) continue;
    if (Array.isArray(value)) value.forEach((v) => params.append(key, v));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function errorOf(status: number, body: unknown): ApiError {
  const text =
    typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string"
      ? (body as { error: string }).error
      : status === 401
        ? "This page's session has ended (its link was opened again, or the server restarted): run nano-brain ui again for a fresh link."
        : `request failed (${status})`;
  return new ApiError(text, status);
}

export class BrowserTransport implements Transport {
  readonly inEditor = false;
  constructor(private token: string) {}

  async request(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const init: RequestInit = {
      method,
      headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
      cache: "no-store",
      credentials: "omit",
    };
    if (method === "POST") init.body = JSON.stringify(body ?? {});
    const response = await fetch(path, init);
    const data: unknown = await response.json().catch(() => null);
    if (!response.ok) throw errorOf(response.status, data);
    return data;
  }

  openFile(root: string, path: string, line: number | null): void {
    const target = `vscode://file${encodeURI(`${root.replace(/\/$/, "")}/${path}`)}${line ? `:${line}` : ""}`;
    window.open(target, "_self");
  }
}

export class WebviewTransport implements Transport {
  readonly inEditor = true;
  private readonly vscode = acquireVsCodeApi();
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor() {
    window.addEventListener("message", (event: MessageEvent) => {
      const msg = event.data as { type?: string; id?: number; status?: number; body?: unknown };
      if (msg?.type !== "response" || typeof msg.id !== "number") return;
      const waiter = this.pending.get(msg.id);
      if (!waiter) return;
      this.pending.delete(msg.id);
      const status = msg.status ?? 0;
      if (status >= 200 && status < 300) waiter.resolve(msg.body);
      else waiter.reject(errorOf(status, msg.body));
    });
  }

  request(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.vscode.postMessage({ type: "request", id, method, path, body });
    });
  }

  openFile(_root: string, path: string, line: number | null): void {
    this.vscode.postMessage({ type: "open", path, line });
  }
}

export function inWebview(): boolean {
  return typeof (globalThis as { acquireVsCodeApi?: unknown }).acquireVsCodeApi === "function";
}

/** Trades the one-time code of the opened link for a page token (browser only). */
export async function redeemCode(code: string): Promise<string> {
  const response = await fetch("/api/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code }),
    cache: "no-store",
    credentials: "omit",
  });
  const data: unknown = await response.json().catch(() => null);
  if (!response.ok) throw errorOf(response.status, data);
  const token = (data as { token?: unknown }).token;
  if (typeof token !== "string") throw new ApiError("the server sent no token", 500);
  return token;
}

export class Api {
  constructor(readonly transport: Transport) {}

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.transport.request("GET", path + queryString(query)) as Promise<T>;
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.transport.request("POST", path, body) as Promise<T>;
  }
}
