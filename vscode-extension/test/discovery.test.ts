import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type DiscoveryEnv,
  type ProbeResult,
  type ServerCommand,
  candidates,
  cliCommand,
  discoverServer,
  expandPath,
  lspCommand,
  notFoundMessage,
  parseVersion,
} from "../src/core/discovery";

function env(overrides: Partial<DiscoveryEnv> & { works?: (c: ServerCommand) => boolean } = {}): DiscoveryEnv & {
  probed: string[];
} {
  const probed: string[] = [];
  const works = overrides.works ?? (() => true);
  return {
    settingPath: "",
    expand: (p) => p,
    which: async (name) => (name === "nano-brain" ? "/usr/bin/nano-brain" : undefined),
    pythonInterpreter: async () => ["/venv/bin/python"],
    probe: async (c): Promise<ProbeResult> => {
      probed.push([c.command, ...c.args].join(" "));
      return works(c) ? { ok: true, version: "0.1.0" } : { ok: false, reason: "exited with 1" };
    },
    defaultPython: "python3",
    trusted: true,
    probed,
    ...overrides,
  };
}

describe("server discovery order", () => {
  it("uses the setting first, and only the setting", async () => {
    const e = env({ settingPath: "~/bin/nano-brain", expand: (p) => p.replace("~", "/home/me") });
    const found = await discoverServer(e);
    assert.ok(found.ok);
    assert.deepEqual(found.server, { command: "/home/me/bin/nano-brain", args: [], source: "setting" });
    assert.deepEqual(e.probed, ["/home/me/bin/nano-brain"]);
  });

  it("does not fall back when the explicit setting is broken", async () => {
    const e = env({ settingPath: "/nope/nano-brain", works: () => false });
    const found = await discoverServer(e);
    assert.equal(found.ok, false);
    assert.deepEqual(e.probed, ["/nope/nano-brain"]);
    if (!found.ok) {
      assert.equal(found.explicit, true);
      assert.match(notFoundMessage(found), /nanoBrain\.server\.path/);
      assert.match(notFoundMessage(found), /pipx install \/path\/to\/nano-brain/);
    }
  });

  it("then nano-brain on PATH", async () => {
    const found = await discoverServer(env());
    assert.ok(found.ok);
    assert.equal(found.server.source, "path");
    assert.equal(found.server.command, "/usr/bin/nano-brain");
    assert.equal(found.version, "0.1.0");
  });

  it("then the selected interpreter's -m nano_brain", async () => {
    const e = env({ works: (c) => c.source === "python" });
    const found = await discoverServer(e);
    assert.ok(found.ok);
    assert.deepEqual(found.server, { command: "/venv/bin/python", args: ["-P", "-m", "nano_brain"], source: "python" });
    assert.deepEqual(e.probed, ["/usr/bin/nano-brain", "/venv/bin/python -P -m nano_brain"]);
    assert.equal(found.tried.length, 1);
  });

  it("falls back to python3 without the Python extension", async () => {
    const list = await candidates(env({ which: async () => undefined, pythonInterpreter: async () => undefined }));
    assert.deepEqual(list, [{ command: "python3", args: ["-P", "-m", "nano_brain"], source: "python" }]);
  });

  it("in a restricted workspace, never asks for the workspace's interpreter", async () => {
    let asked = false;
    const list = await candidates(
      env({
        trusted: false,
        pythonInterpreter: async () => {
          asked = true;
          return ["/repo/.venv/bin/python"];
        },
      }),
    );
    assert.equal(asked, false);
    assert.deepEqual(list.map((c) => c.command), ["/usr/bin/nano-brain", "python3"]);
  });

  it("keeps interpreter argv (e.g. a launcher with flags)", async () => {
    const list = await candidates(env({ which: async () => undefined, pythonInterpreter: async () => ["py", "-3.11"] }));
    assert.deepEqual(list[0], { command: "py", args: ["-3.11", "-P", "-m", "nano_brain"], source: "python" });
  });

  it("reports every attempt and the install command when nothing works", async () => {
    const found = await discoverServer(env({ works: () => false }));
    assert.equal(found.ok, false);
    if (!found.ok) {
      assert.equal(found.explicit, false);
      assert.equal(found.tried.length, 2);
      const message = notFoundMessage(found);
      assert.match(message, /pipx install \/path\/to\/nano-brain/);
      assert.match(message, /nanoBrain\.server\.path/);
      assert.doesNotMatch(message, /at .*\.js/); // not a stack trace
    }
  });
});

describe("parseVersion", () => {
  it("accepts click's version line", () => {
    assert.deepEqual(parseVersion(0, "nano-brain, version 0.1.0\n", ""), { ok: true, version: "0.1.0" });
  });
  it("rejects another program", () => {
    const r = parseVersion(0, "Python 3.11.7\n", "");
    assert.equal(r.ok, false);
  });
  it("keeps the last stderr line of a failure", () => {
    const r = parseVersion(1, "", "Traceback...\nModuleNotFoundError: No module named nano_brain\n");
    assert.deepEqual(r, { ok: false, reason: "exited with 1: ModuleNotFoundError: No module named nano_brain" });
  });
  it("names a missing executable", () => {
    const r = parseVersion(null, "", "ENOENT: spawn nano-brain ENOENT");
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.reason, /ENOENT/);
  });
});

describe("argv building", () => {
  const python: ServerCommand = { command: "/venv/bin/python", args: ["-P", "-m", "nano_brain"], source: "python" };
  it("starts the language server", () => {
    assert.deepEqual(lspCommand(python), { command: "/venv/bin/python", args: ["-P", "-m", "nano_brain", "lsp"] });
  });
  it("runs CLI commands for a folder with --json", () => {
    assert.deepEqual(cliCommand(python, ["mcp-config"], "/ws"), {
      command: "/venv/bin/python",
      args: ["-P", "-m", "nano_brain", "mcp-config", "--workspace", "/ws", "--json"],
    });
  });
  it("expands ~ and ${workspaceFolder}", () => {
    assert.equal(expandPath("~/x", "/home/me", undefined), "/home/me/x");
    assert.equal(expandPath("${workspaceFolder}/.venv/bin/nano-brain", "/h", "/ws"), "/ws/.venv/bin/nano-brain");
    assert.equal(expandPath("/abs/~x", "/h", "/ws"), "/abs/~x");
  });
});
