import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StatusModel, countsFromStatus, healthFromDoctor, isWorkDoneValue } from "../src/core/status";

describe("progress -> status text", () => {
  it("shows indexing with the percentage, then the note count", () => {
    const m = new StatusModel();
    m.setState("ws", "running");
    m.progress("ws", "idx", { kind: "begin", title: "Indexing", message: "0/200 files", percentage: 0 });
    assert.equal(m.view().text, "$(sync~spin) nano-brain: indexing 0%");
    m.progress("ws", "idx", { kind: "report", message: "50/200 files", percentage: 25 });
    assert.equal(m.view().text, "$(sync~spin) nano-brain: indexing 25%");
    assert.match(m.view().tooltip, /Indexing — 50\/200 files — 25%/);
    m.progress("ws", "idx", { kind: "end", message: "done" });
    m.setCounts("ws", { notes: 12, sessions: 3 });
    assert.equal(m.view().text, "$(book) 12 notes");
    assert.match(m.view().tooltip, /3 session summaries/);
  });

  it("uses the message when the server sends no percentage", () => {
    const m = new StatusModel();
    m.setState("ws", "running");
    m.progress("ws", 1, { kind: "begin", title: "Indexing", message: "scanning" });
    assert.equal(m.view().text, "$(sync~spin) nano-brain: indexing scanning");
  });

  it("averages folders and clamps percentages", () => {
    const m = new StatusModel();
    m.setState("a", "running");
    m.setState("b", "running");
    m.progress("a", 1, { kind: "begin", title: "Indexing", percentage: 20 });
    m.progress("b", 1, { kind: "begin", title: "Indexing", percentage: 140 });
    assert.equal(m.view().text, "$(sync~spin) nano-brain: indexing 60%");
  });

  it("ignores a report for an unknown token", () => {
    const m = new StatusModel();
    m.setState("ws", "running");
    m.progress("ws", "x", { kind: "report", percentage: 50 });
    assert.equal(m.indexing, false);
  });

  it("sums notes over folders, singular for one", () => {
    const m = new StatusModel();
    m.setState("a", "running");
    m.setCounts("a", { notes: 1, sessions: 0 });
    assert.equal(m.view().text, "$(book) 1 note");
    m.setState("b", "running");
    m.setCounts("b", { notes: 4, sessions: 0 });
    assert.equal(m.view().text, "$(book) 5 notes");
  });

  it("a stopped server drops its progress; problems win", () => {
    const m = new StatusModel();
    m.setState("ws", "running");
    m.progress("ws", 1, { kind: "begin", title: "Indexing", percentage: 5 });
    m.setState("ws", "restarting");
    assert.equal(m.indexing, false);
    assert.equal(m.view().text, "$(sync~spin) nano-brain: restarting");
    m.setState("ws", "missing");
    assert.equal(m.view().text, "$(warning) nano-brain: not found");
    m.removeFolder("ws");
    assert.equal(m.view().text, "$(book) nano-brain");
  });

  it("recognises work-done values", () => {
    assert.equal(isWorkDoneValue({ kind: "begin", title: "x" }), true);
    assert.equal(isWorkDoneValue({ kind: "other" }), false);
    assert.equal(isWorkDoneValue(null), false);
  });

  it("reads counts from `nano-brain status --json`", () => {
    assert.deepEqual(countsFromStatus({ documents: 9, by_kind: { note: 7, session: 2 } }), { notes: 7, sessions: 2 });
    assert.deepEqual(countsFromStatus({ by_kind: {} }), { notes: 0, sessions: 0 });
    assert.equal(countsFromStatus({}), undefined);
  });
});

describe("doctor -> status bar", () => {
  const report = {
    workspace: "/w",
    errors: 1,
    warnings: 1,
    checks: [
      { area: "install", name: "sqlite", level: "ok", detail: "fine", fix: "" },
      { area: "store", name: "full-text", level: "error", detail: "chunks_fts: malformed", fix: "nano-brain doctor --repair" },
      { area: "config", name: "config", level: "warning", detail: "search.limit: bad", fix: "" },
    ],
  };

  it("marks the status and lists each problem with its fix", () => {
    const m = new StatusModel();
    m.setState("ws", "running");
    m.setCounts("ws", { notes: 3, sessions: 0 });
    assert.equal(m.view().text, "$(book) 3 notes");
    const health = healthFromDoctor(report);
    assert.deepEqual(health?.problems, [
      "error: store full-text: chunks_fts: malformed (fix: nano-brain doctor --repair)",
      "warning: config config: search.limit: bad",
    ]);
    m.setHealth("ws", health!);
    assert.equal(m.view().text, "$(error) 3 notes");
    assert.match(m.view().tooltip, /nano-brain doctor --repair/);
    m.setHealth("ws", healthFromDoctor({ checks: [report.checks[2]] })!);
    assert.equal(m.view().text, "$(warning) 3 notes");
    m.setHealth("ws", healthFromDoctor({ checks: [report.checks[0]] })!);
    assert.equal(m.view().text, "$(book) 3 notes");
  });

  it("ignores output that is not a report", () => {
    assert.equal(healthFromDoctor(null), undefined);
    assert.equal(healthFromDoctor({ checks: "no" }), undefined);
  });
});
