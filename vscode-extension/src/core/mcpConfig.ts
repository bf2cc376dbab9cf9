/** Snippets from `nano-brain mcp-config --json`, offered per agent client. */

export interface McpSnippet {
  client: string;
  transport: string;
  where: string;
  text: string;
}

export interface McpConfig {
  workspace: string;
  url: string;
  running: boolean;
  tokenEnv: string;
  tokenFile: string;
  snippets: McpSnippet[];
}

export const CLIENTS = ["Claude Code", "Codex", "Cursor"] as const;

function s(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function parseMcpConfig(value: unknown): McpConfig | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const raw = value as Record<string, unknown>;
  const list = Array.isArray(raw["snippets"]) ? (raw["snippets"] as unknown[]) : [];
  const snippets = list
    .map((item): McpSnippet | undefined => {
      if (typeof item !== "object" || item === null) return undefined;
      const r = item as Record<string, unknown>;
      const snippet = { client: s(r["client"]), transport: s(r["transport"]), where: s(r["where"]), text: s(r["text"]) };
      return snippet.client !== "" && snippet.text !== "" ? snippet : undefined;
    })
    .filter((x): x is McpSnippet => x !== undefined);
  if (snippets.length === 0) return undefined;
  return {
    workspace: s(raw["workspace"]),
    url: s(raw["url"]),
    running: raw["running"] !== null && raw["running"] !== undefined,
    tokenEnv: s(raw["token_env"]),
    tokenFile: s(raw["token_file"]),
    snippets,
  };
}

export interface SnippetPick {
  label: string;
  description: string;
  detail: string;
  snippet: McpSnippet;
}

/**
 * QuickPick entries: stdio first (works without a running sidecar), HTTP marked with
 * whether the sidecar's endpoint is live.
 */
export function snippetPicks(config: McpConfig, client?: string): SnippetPick[] {
  const order = (x: McpSnippet): number =>
    (CLIENTS as readonly string[]).indexOf(x.client) * 10 + (x.transport === "stdio" ? 0 : 1);
  return config.snippets
    .filter((x) => client === undefined || x.client === client)
    .sort((a, b) => order(a) - order(b))
    .map((snippet) => ({
      label: `${snippet.client}: ${snippet.transport}`,
      description: snippet.where,
      detail:
        snippet.transport === "http"
          ? `${config.url}${config.running ? " (running)" : " (not running now)"}; token in $${config.tokenEnv}`
          : "the agent starts `nano-brain mcp` itself",
      snippet,
    }));
}
