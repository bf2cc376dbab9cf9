/** The selected Python interpreter, from the ms-python extension when it is installed. */

import * as vscode from "vscode";

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
  resolveEnvironment(
    env: { path: string } | string,
  ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
}

const PYTHON_EXTENSION = "ms-python.python";

async function api(): Promise<PythonEnvironmentsApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (ext === undefined) return undefined;
  try {
    const exports = ext.isActive ? ext.exports : await ext.activate();
    return exports?.environments;
  } catch {
    return undefined;
  }
}

/** argv of the interpreter selected for `resource`, or undefined (no ms-python, nothing chosen). */
export async function selectedInterpreter(
  resource: vscode.Uri | undefined,
  log: vscode.LogOutputChannel,
): Promise<string[] | undefined> {
  const environments = await api();
  if (environments === undefined) return undefined;
  try {
    const active = environments.getActiveEnvironmentPath(resource);
    if (active === undefined) return undefined;
    const resolved = await environments.resolveEnvironment(active);
    const executable = resolved?.executable.uri?.fsPath;
    return executable ? [executable] : undefined;
  } catch (error) {
    log.warn(`ms-python: could not read the selected interpreter: ${String(error)}`);
    return undefined;
  }
}

/** Fires when the user picks another interpreter (restart: `-m nano_brain` may change). */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const environments = await api();
  return environments?.onDidChangeActiveEnvironmentPath?.(() => listener());
}
