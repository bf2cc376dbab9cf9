import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CliError, parseJsonOutput, run } from "../src/core/exec";
import { which } from "../src/core/which";

describe("which", () => {
  const dir = mkdtempSync(join(tmpdir(), "nb-which-"));
  const exe = join(dir, "nano-brain");
  writeFileSync(exe, "#!/bin/sh\necho 'nano-brain, version 9.9.9'\n");
  chmodSync(exe, 0o755);
  writeFileSync(join(dir, "not-exec"), "");

  it("finds an executable on PATH", async () => {
    assert.equal(await which("nano-brain", { PATH: `/nonexistent:${dir}` }, "linux"), exe);
  });
  it("skips files that are not executable", async () => {
    assert.equal(await which("not-exec", { PATH: dir }, "linux"), undefined);
  });
  it("returns undefined on an empty PATH", async () => {
    assert.equal(await which("nano-brain", {}, "linux"), undefined);
  });

  it("runs it without a shell", async () => {
    const result = await run(exe, ["--version"]);
    assert.deepEqual(result, { exitCode: 0, stdout: "nano-brain, version 9.9.9\n", stderr: "" });
  });
  it("reports a missing executable instead of throwing", async () => {
    const result = await run(join(dir, "missing"), []);
    assert.equal(result.exitCode, null);
    assert.match(result.stderr, /ENOENT/);
  });
});

describe("CLI JSON output", () => {
  it("parses --json output", () => {
    assert.deepEqual(parseJsonOutput({ exitCode: 0, stdout: '{"a": 1}', stderr: "" }, "x"), { a: 1 });
  });
  it("turns the CLI's error line into the message", () => {
    assert.throws(
      () => parseJsonOutput({ exitCode: 2, stdout: "", stderr: "warn\nnano-brain: error: no such note #9\n" }, "nano-brain get 9"),
      (e: unknown) => e instanceof CliError && e.message === "nano-brain get 9 failed (exit 2): nano-brain: error: no such note #9",
    );
  });
  it("rejects output that is not JSON", () => {
    assert.throws(() => parseJsonOutput({ exitCode: 0, stdout: "hello", stderr: "" }, "x"), CliError);
  });
});
