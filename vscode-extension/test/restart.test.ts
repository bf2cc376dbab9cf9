import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Backoff } from "../src/core/backoff";
import { SerialGuard } from "../src/core/guard";

describe("crash backoff", () => {
  it("doubles up to the cap, then gives up after too many crashes in the window", () => {
    let now = 0;
    const b = new Backoff({ baseMs: 1000, maxMs: 4000, maxCrashes: 4, windowMs: 60_000 }, () => now);
    const delays = [b.nextDelay(), b.nextDelay(), b.nextDelay(), b.nextDelay(), b.nextDelay()];
    assert.deepEqual(delays, [1000, 2000, 4000, 4000, undefined]);
    now = 61_000; // old crashes left the window
    assert.equal(b.nextDelay(), 1000);
  });

  it("a deliberate restart starts over", () => {
    const b = new Backoff({ baseMs: 10, maxMs: 1000, maxCrashes: 2, windowMs: 1000 }, () => 0);
    b.nextDelay();
    b.nextDelay();
    b.reset();
    assert.equal(b.nextDelay(), 10);
    assert.equal(b.recentCrashes, 1);
  });
});

describe("guarded restart", () => {
  it("never runs two restarts at once and coalesces a burst into one follow-up", async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const guard = new SerialGuard(async () => {
      active++;
      runs++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 10));
      active--;
    });
    await Promise.all([guard.run(), guard.run(), guard.run(), guard.run()]);
    assert.equal(maxActive, 1);
    assert.equal(runs, 2); // the first, then one for the three that came during it
    assert.equal(guard.busy, false);
  });

  it("keeps working after a failed run", async () => {
    let calls = 0;
    const guard = new SerialGuard(async () => {
      calls++;
      if (calls === 1) throw new Error("boom");
    });
    await assert.rejects(guard.run(), /boom/);
    await guard.run();
    assert.equal(calls, 2);
  });
});
