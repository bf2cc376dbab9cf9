import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readSettings, toInitializationOptions } from "../src/core/settings";
import { HOVER_COMMANDS, hoverMarkdownTrust } from "../src/core/trust";

interface Manifest {
  capabilities?: {
    untrustedWorkspaces?: { supported?: unknown; restrictedConfigurations?: string[] };
  };
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
}

// tests run from out/test/, the manifest is two levels up from there
const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as Manifest;

describe("workspace trust", () => {
  it("declares limited support in restricted mode", () => {
    assert.equal(manifest.capabilities?.untrustedWorkspaces?.supported, "limited");
  });

  it("keeps a restricted workspace's own settings from choosing the server or where data goes", () => {
    const restricted = manifest.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? [];
    for (const key of ["nanoBrain.server.path", "nanoBrain.embedding.provider", "nanoBrain.harvest.enabled"]) {
      assert.ok(restricted.includes(key), key);
      assert.ok(key in manifest.contributes.configuration.properties, `${key} is a contributed setting`);
    }
  });

  it("tells the server the workspace's trust", () => {
    const { settings } = readSettings({ get: () => undefined, isSet: () => false });
    assert.equal(toInitializationOptions(settings, false).workspace_trusted, false);
    assert.equal(toInitializationOptions(settings, true).workspace_trusted, true);
  });

  it("lets hover links run nano-brain's own commands only", () => {
    assert.deepEqual(hoverMarkdownTrust(), { enabledCommands: HOVER_COMMANDS });
    assert.ok(HOVER_COMMANDS.length > 0);
    for (const command of HOVER_COMMANDS) assert.match(command, /^nano-brain\.[a-zA-Z]+$/);
  });
});
