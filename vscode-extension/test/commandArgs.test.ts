import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  SERVER_COMMANDS,
  defaultTitle,
  normalizeRef,
  parseTags,
  recordDecisionArgs,
  retractArgs,
  saveSelectionArgs,
  searchParams,
  searchRelatedArgs,
  supersedeArgs,
  validateTitle,
} from "../src/core/commandArgs";

const location = {
  uri: "file:///ws/app.py",
  range: { start: { line: 3, character: 0 }, end: { line: 9, character: 4 } },
};

describe("server command names", () => {
  it("match the language server's commands", () => {
    assert.deepEqual(Object.values(SERVER_COMMANDS).sort(), [
      "nano-brain.notes",
      "nano-brain.recordDecision",
      "nano-brain.retract",
      "nano-brain.saveSelection",
      "nano-brain.searchRelated",
      "nano-brain.supersede",
      "nano-brain.why",
    ]);
  });
});

describe("argument building", () => {
  it("saveSelection: location, text, trimmed title, parsed tags", () => {
    assert.deepEqual(saveSelectionArgs(location, "def f(): ...", "  Why f  ", "api, #perf perf"), {
      ...location,
      text: "def f(): ...",
      title: "Why f",
      tags: ["api", "perf"],
    });
  });

  it("recordDecision: text falls back to the title; location optional", () => {
    assert.deepEqual(recordDecisionArgs("Use SQLite", "", ""), { title: "Use SQLite", text: "Use SQLite", tags: [] });
    const anchored = recordDecisionArgs("Use WAL", "readers never block", "db", location);
    assert.equal(anchored.uri, location.uri);
    assert.deepEqual(anchored.range, location.range);
    assert.deepEqual(anchored.tags, ["db"]);
  });

  it("supersede: the old id without #, anchored or with the folder root", () => {
    assert.deepEqual(supersedeArgs(" #a1b2 ", "New", "now true", { root: "/ws" }), {
      old: "a1b2",
      title: "New",
      text: "now true",
      root: "/ws",
    });
    assert.deepEqual(supersedeArgs("a1", "T", "x", location), { old: "a1", title: "T", text: "x", ...location });
  });

  it("retract: id, trimmed reason, folder root", () => {
    assert.deepEqual(retractArgs("#7", " wrong API "), { id: "7", reason: "wrong API" });
    assert.deepEqual(retractArgs("7", "", "/ws"), { id: "7", reason: "", root: "/ws" });
  });

  it("searchRelated: an empty range at the cursor", () => {
    assert.deepEqual(searchRelatedArgs("file:///ws/a.py", { line: 2, character: 5 }), {
      uri: "file:///ws/a.py",
      range: { start: { line: 2, character: 5 }, end: { line: 2, character: 5 } },
    });
  });

  it("search params: trimmed query, folder root, only fields the server accepts", () => {
    assert.deepEqual(searchParams("  hover  "), { query: "hover", limit: 20 });
    assert.deepEqual(searchParams("q", "/ws", 5), { query: "q", limit: 5, root: "/ws" });
  });
});

describe("prompts", () => {
  it("parseTags splits on commas and spaces, drops #, dedupes", () => {
    assert.deepEqual(parseTags(" a, b  c,,#a ## "), ["a", "b", "c"]);
    assert.deepEqual(parseTags(""), []);
  });
  it("validateTitle", () => {
    assert.equal(validateTitle("ok"), undefined);
    assert.match(validateTitle("   ") ?? "", /required/);
    assert.match(validateTitle("x".repeat(201)) ?? "", /200/);
  });
  it("defaultTitle is the first non-empty line, shortened", () => {
    assert.equal(defaultTitle("\n\n  first line \nsecond"), "first line");
    assert.equal(defaultTitle("y".repeat(100), 10), `${"y".repeat(9)}…`);
  });
  it("normalizeRef", () => {
    assert.equal(normalizeRef("#12"), "12");
    assert.equal(normalizeRef("docs/a.md"), "docs/a.md");
  });
});
