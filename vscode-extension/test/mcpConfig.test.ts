import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseMcpConfig, snippetPicks } from "../src/core/mcpConfig";

const output = {
  workspace: "/ws",
  workspace_id: "abc",
  running: null,
  url: "http://127.0.0.1:8765/mcp",
  token: "secret",
  token_file: "/state/token",
  token_env: "NANO_BRAIN_MCP_TOKEN",
  snippets: [
    { client: "Cursor", transport: "http", where: ".cursor/mcp.json", text: "{c-http}" },
    { client: "Claude Code", transport: "http", where: ".mcp.json", text: "{cc-http}" },
    { client: "Codex", transport: "stdio", where: "~/.codex/config.toml", text: "[codex]" },
    { client: "Claude Code", transport: "stdio", where: "shell", text: "claude mcp add ..." },
    { client: "Cursor", transport: "stdio", where: ".cursor/mcp.json", text: "{c-stdio}" },
  ],
};

describe("mcp-config snippets", () => {
  it("parses `nano-brain mcp-config --json`", () => {
    const config = parseMcpConfig(output);
    assert.ok(config);
    assert.equal(config.running, false);
    assert.equal(config.tokenEnv, "NANO_BRAIN_MCP_TOKEN");
    assert.equal(config.snippets.length, 5);
  });

  it("orders Claude Code, Codex, Cursor; stdio before http", () => {
    const config = parseMcpConfig(output);
    assert.ok(config);
    assert.deepEqual(
      snippetPicks(config).map((p) => p.label),
      ["Claude Code: stdio", "Claude Code: http", "Codex: stdio", "Cursor: stdio", "Cursor: http"],
    );
  });

  it("filters by client and never puts the token itself in a pick", () => {
    const config = parseMcpConfig(output);
    assert.ok(config);
    const picks = snippetPicks(config, "Cursor");
    assert.deepEqual(picks.map((p) => p.snippet.text), ["{c-stdio}", "{c-http}"]);
    assert.match(picks[1]?.detail ?? "", /not running now.*NANO_BRAIN_MCP_TOKEN/);
    assert.ok(picks.every((p) => !JSON.stringify(p).includes("secret")));
  });

  it("rejects output without snippets", () => {
    assert.equal(parseMcpConfig({ snippets: [] }), undefined);
    assert.equal(parseMcpConfig("nope"), undefined);
  });
});
