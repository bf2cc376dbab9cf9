import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESTART_KEYS, type SettingsSource, needsRestart, readSettings, toInitializationOptions } from "../src/core/settings";
import { LogLevel, effectiveTrace } from "../src/core/trace";

const DEFAULTS: Record<string, unknown> = {
  "server.path": "",
  "embedding.provider": "default",
  "harvest.enabled": false,
  "review.enabled": false,
  "trace.server": "off",
};

function source(user: Record<string, unknown>): SettingsSource {
  return {
    get: (key) => (key in user ? user[key] : DEFAULTS[key]),
    isSet: (key) => key in user,
  };
}

describe("settings -> initializationOptions", () => {
  it("sends nothing the user did not set", () => {
    const { settings, warnings } = readSettings(source({}));
    assert.deepEqual(warnings, []);
    assert.deepEqual(toInitializationOptions(settings, true), { workspace_trusted: true });
  });

  it("mirrors config.yml sections for set values", () => {
    const { settings } = readSettings(
      source({ "embedding.provider": "ollama", "harvest.enabled": true, "review.enabled": false }),
    );
    assert.deepEqual(toInitializationOptions(settings, false), {
      workspace_trusted: false,
      embedding: { provider: "ollama" },
      harvest: { enabled: true },
      review: { enabled: false },
    });
  });

  it("trims the server path", () => {
    assert.equal(readSettings(source({ "server.path": "  /opt/nb  " })).settings.serverPath, "/opt/nb");
  });

  it("replaces invalid values by defaults, with a warning each", () => {
    const { settings, warnings } = readSettings(
      source({ "embedding.provider": "magic", "harvest.enabled": "yes", "trace.server": 3 }),
    );
    assert.equal(settings.embeddingProvider, "default");
    assert.equal(settings.harvestEnabled, undefined);
    assert.equal(settings.trace, "off");
    assert.equal(warnings.length, 3);
    assert.match(warnings[0] ?? "", /nanoBrain\.embedding\.provider/);
  });
});

describe("restart on change", () => {
  it("restarts for server, embedding, harvest and review settings", () => {
    assert.deepEqual(RESTART_KEYS, [
      "nanoBrain.server.path",
      "nanoBrain.embedding.provider",
      "nanoBrain.harvest.enabled",
      "nanoBrain.review.enabled",
    ]);
    assert.equal(needsRestart((k) => k === "nanoBrain.review.enabled"), true);
  });
  it("does not restart for the trace setting", () => {
    assert.equal(needsRestart((k) => k === "nanoBrain.trace.server"), false);
  });
});

describe("log level drives the LSP trace", () => {
  it("Trace -> verbose, Debug -> messages", () => {
    assert.equal(effectiveTrace("off", LogLevel.Trace), "verbose");
    assert.equal(effectiveTrace("off", LogLevel.Debug), "messages");
    assert.equal(effectiveTrace("off", LogLevel.Info), "off");
  });
  it("the setting wins when it asks for more", () => {
    assert.equal(effectiveTrace("verbose", LogLevel.Info), "verbose");
    assert.equal(effectiveTrace("messages", LogLevel.Trace), "verbose");
  });
});
