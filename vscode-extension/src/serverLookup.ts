/** Server discovery with the real PATH, interpreter and `--version` probe. */

import * as os from "node:os";
import * as vscode from "vscode";
import {
  type Discovery,
  type ServerCommand,
  describe,
  discoverServer,
  expandPath,
  parseVersion,
} from "./core/discovery";
import { run } from "./core/exec";
import { which } from "./core/which";
import { selectedInterpreter } from "./python";

const PROBE_TIMEOUT_MS = 20_000;

export async function probe(candidate: ServerCommand) {
  const result = await run(candidate.command, [...candidate.args, "--version"], {
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  return parseVersion(result.exitCode, result.stdout, result.stderr);
}

export async function findServer(
  folder: vscode.WorkspaceFolder,
  settingPath: string,
  log: vscode.LogOutputChannel,
): Promise<Discovery> {
  const result = await discoverServer({
    settingPath,
    expand: (p) => expandPath(p, os.homedir(), folder.uri.fsPath),
    which: (name) => which(name),
    pythonInterpreter: () => selectedInterpreter(folder.uri, log),
    probe,
    defaultPython: process.platform === "win32" ? "python" : "python3",
    trusted: vscode.workspace.isTrusted,
  });
  for (const attempt of result.tried) {
    log.info(`[${folder.name}] not the server: ${describe(attempt.candidate)} (${attempt.reason})`);
  }
  if (result.ok) {
    log.info(
      `[${folder.name}] server: ${describe(result.server)} (from ${result.server.source}), version ${result.version}`,
    );
  }
  return result;
}
