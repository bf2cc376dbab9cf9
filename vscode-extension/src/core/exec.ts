/** Running the nano-brain CLI: argv in, JSON (or a readable error) out. No shell. */

import { execFile } from "node:child_process";

export interface ExecResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<ExecResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 16 * 1024 * 1024,
        windowsHide: true,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        let exitCode: number | null = 0;
        if (error !== null) {
          const code = (error as { code?: unknown }).code;
          exitCode = typeof code === "number" ? code : null;
          if (typeof code === "string") stderr = `${stderr}${stderr ? "\n" : ""}${code}: ${error.message}`;
        }
        resolve({ exitCode, stdout, stderr });
      },
    );
  });
}

export class CliError extends Error {}

/** The JSON a `--json` command printed, or a CliError with the CLI's own message. */
export function parseJsonOutput(result: ExecResult, what: string): unknown {
  if (result.exitCode !== 0) {
    const lines = result.stderr.trim().split("\n").filter((l) => l.trim() !== "");
    const error = lines.find((l) => l.startsWith("nano-brain: error:")) ?? lines.pop() ?? "";
    throw new CliError(`${what} failed (exit ${result.exitCode ?? "signal"})${error ? `: ${error}` : ""}`);
  }
  try {
    return JSON.parse(result.stdout) as unknown;
  } catch {
    throw new CliError(`${what} printed no JSON: ${result.stdout.trim().slice(0, 120)}`);
  }
}
