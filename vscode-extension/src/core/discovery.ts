/**
 * Finding the nano-brain server, in a fixed order:
 *   1. the `nanoBrain.server.path` setting (when set, it is the only candidate: a broken
 *      explicit path is reported, not silently replaced);
 *   2. `nano-brain` on PATH;
 *   3. the selected Python interpreter's `-P -m nano_brain` (ms-python's choice, else
 *      `python3`; in a restricted workspace always `python3`).
 * Every side effect (PATH lookup, interpreter, running `--version`) is injected.
 */

export type ServerSource = "setting" | "path" | "python";

/** How to run the nano-brain CLI; the LSP is `command ...args lsp`. */
export interface ServerCommand {
  command: string;
  args: string[];
  source: ServerSource;
}

export type ProbeResult = { ok: true; version: string } | { ok: false; reason: string };

export interface Attempt {
  candidate: ServerCommand;
  reason: string;
}

export type Discovery =
  | { ok: true; server: ServerCommand; version: string; tried: Attempt[] }
  | { ok: false; tried: Attempt[]; explicit: boolean };

export interface DiscoveryEnv {
  /** The `nanoBrain.server.path` setting, already trimmed; "" when unset. */
  settingPath: string;
  /** Expands `~` and `${workspaceFolder}` in the setting. */
  expand(path: string): string;
  /** Absolute path of an executable on PATH, or undefined. */
  which(name: string): Promise<string | undefined>;
  /** The selected interpreter as argv (e.g. ["/venv/bin/python"]), or undefined. */
  pythonInterpreter(): Promise<string[] | undefined>;
  /** Runs `command ...args --version`. */
  probe(candidate: ServerCommand): Promise<ProbeResult>;
  /** "python3" on POSIX, "python" on Windows. */
  defaultPython: string;
  /**
   * VS Code's Workspace Trust for the folder. A restricted workspace may have chosen the
   * interpreter (its settings, a venv inside it): only PATH and the default Python are tried.
   */
  trusted: boolean;
}

export const EXECUTABLE = "nano-brain";
export const MODULE = "nano_brain";

export async function candidates(env: DiscoveryEnv): Promise<ServerCommand[]> {
  if (env.settingPath !== "") {
    return [{ command: env.expand(env.settingPath), args: [], source: "setting" }];
  }
  const list: ServerCommand[] = [];
  const onPath = await env.which(EXECUTABLE);
  if (onPath !== undefined) list.push({ command: onPath, args: [], source: "path" });
  const chosen = env.trusted ? await env.pythonInterpreter() : undefined;
  const [python, ...pythonArgs] = chosen ?? [env.defaultPython];
  if (python !== undefined) {
    // -P: the server runs with the workspace as its cwd, and `-m` would otherwise import a
    // `nano_brain` folder the repository ships instead of the installed package.
    list.push({ command: python, args: [...pythonArgs, "-P", "-m", MODULE], source: "python" });
  }
  return list;
}

/** The first candidate whose `--version` works, with every failed attempt. */
export async function discoverServer(env: DiscoveryEnv): Promise<Discovery> {
  const tried: Attempt[] = [];
  for (const candidate of await candidates(env)) {
    const result = await env.probe(candidate);
    if (result.ok) return { ok: true, server: candidate, version: result.version, tried };
    tried.push({ candidate, reason: result.reason });
  }
  return { ok: false, tried, explicit: env.settingPath !== "" };
}

/** Decide from `--version` output and exit code whether a candidate is nano-brain. */
export function parseVersion(exitCode: number | null, stdout: string, stderr: string): ProbeResult {
  if (exitCode !== 0) {
    const detail = (stderr.trim().split("\n").pop() ?? "").trim();
    return { ok: false, reason: `exited with ${exitCode ?? "a signal"}${detail ? `: ${detail}` : ""}` };
  }
  const match = /nano-brain,? version (\S+)/.exec(stdout);
  if (match?.[1] === undefined) {
    return { ok: false, reason: `unexpected --version output: ${stdout.trim().slice(0, 80)}` };
  }
  return { ok: true, version: match[1] };
}

export function describe(candidate: ServerCommand): string {
  return [candidate.command, ...candidate.args].join(" ");
}

// nano-brain is not on PyPI: install it from a checkout (pipx keeps it off the system Python).
export const INSTALL_COMMAND = "pipx install /path/to/nano-brain";

/** The one notification shown when no server runs. */
export function notFoundMessage(result: Extract<Discovery, { ok: false }>): string {
  if (result.explicit) {
    const attempt = result.tried[0];
    const why = attempt ? ` (${describe(attempt.candidate)}: ${attempt.reason})` : "";
    return (
      `nano-brain: the server set in "nanoBrain.server.path" does not run${why}. ` +
      `Fix the setting or clear it, or install the server with \`${INSTALL_COMMAND}\`.`
    );
  }
  return (
    `nano-brain: the server was not found. Install it with \`${INSTALL_COMMAND}\` ` +
    `(into the selected Python interpreter, or with pipx so \`${EXECUTABLE}\` is on PATH), ` +
    `or set "nanoBrain.server.path" to the nano-brain executable.`
  );
}

/** `~` and `${workspaceFolder}` in a configured path. */
export function expandPath(path: string, home: string, folder: string | undefined): string {
  let out = path;
  if (folder !== undefined) out = out.split("${workspaceFolder}").join(folder);
  if (out === "~" || out.startsWith("~/") || out.startsWith("~\\")) out = home + out.slice(1);
  return out;
}

/** The argv that starts the language server. */
export function lspCommand(server: ServerCommand): { command: string; args: string[] } {
  return { command: server.command, args: [...server.args, "lsp"] };
}

/** The argv of a CLI call for one workspace folder, always with --json. */
export function cliCommand(
  server: ServerCommand,
  subcommand: readonly string[],
  folder: string,
): { command: string; args: string[] } {
  return {
    command: server.command,
    args: [...server.args, ...subcommand, "--workspace", folder, "--json"],
  };
}
