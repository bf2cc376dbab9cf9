import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  noteUriParts,
  parseSearchResponse,
  parseVirtualQuery,
  renderNote,
  renderWakeUp,
  toPickItem,
  wakeUpUriParts,
} from "../src/core/search";

const hit = {
  id: "a1b2c3",
  title: "Why the store uses WAL",
  kind: "note",
  collection: "memory",
  tags: ["decision", "db"],
  source_path: null,
  created_at: "2025-01-01T00:00:00Z",
  updated_at: "2025-01-02T00:00:00Z",
  score: 0.42,
  status: "superseded",
  superseded_by: { id: "d4e5", title: "WAL and busy_timeout" },
  version: 1,
  snippet: "Readers   never\nblock writers.",
  lines: [1, 3],
  content: "Readers never block writers.\nSo the sidecar and the CLI can share the file.",
};

describe("search results", () => {
  it("parses the server's {results} shape and a bare list", () => {
    assert.equal(parseSearchResponse({ query: "wal", results: [hit] })[0]?.id, "a1b2c3");
    assert.equal(parseSearchResponse([hit]).length, 1);
    assert.deepEqual(parseSearchResponse({ results: [{ title: "no id" }, 3] }), []);
    assert.deepEqual(parseSearchResponse(null), []);
  });

  it("makes QuickPick items with status, successor and tags", () => {
    const [parsed] = parseSearchResponse({ results: [hit] });
    assert.ok(parsed);
    const item = toPickItem(parsed);
    assert.equal(item.label, "$(note) Why the store uses WAL");
    assert.equal(item.description, "#a1b2c3  #decision #db  [superseded, by #d4e5]");
    assert.equal(item.detail, "Readers never block writers.");
    assert.equal(item.id, "a1b2c3");
  });

  it("flags stale anchors", () => {
    const [parsed] = parseSearchResponse([{ ...hit, status: "active", superseded_by: null, stale: true }]);
    assert.ok(parsed);
    assert.match(toPickItem(parsed).description, /\[may be stale\]/);
  });
});

describe("virtual documents", () => {
  it("round-trips a note URI", () => {
    const parts = noteUriParts({ folder: "file:///ws/a b", id: "a1b2c3" }, "Why: the/WAL?");
    assert.equal(parts.path, "/#a1b2c3 Why the WAL.md");
    assert.deepEqual(parseVirtualQuery(parts.query), { kind: "note", folder: "file:///ws/a b", id: "a1b2c3" });
  });

  it("round-trips the wake-up view", () => {
    const parts = wakeUpUriParts("file:///ws", "ws");
    assert.deepEqual(parseVirtualQuery(parts.query), { kind: "wake-up", folder: "file:///ws" });
    assert.equal(parseVirtualQuery("id=1"), undefined);
  });

  it("renders a note as Markdown", () => {
    const text = renderNote(hit);
    assert.match(text, /^# Why the store uses WAL\n/);
    assert.match(text, /superseded by #d4e5/);
    assert.match(text, /#decision #db/);
    assert.match(text, /So the sidecar and the CLI can share the file\.\n$/);
  });

  it("renders wake-up text, or says memory is empty", () => {
    assert.equal(renderWakeUp({ text: "## Decisions\n- x" }), "## Decisions\n- x\n");
    assert.match(renderWakeUp({ text: "" }), /Nothing in memory yet/);
  });
});
