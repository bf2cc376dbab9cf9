/** Activation only: build the parts and wire them together. */

import * as vscode from "vscode";
import { CommandRouter } from "./commandRouter";
import { COMMANDS, registerCommands } from "./commands";
import { MemoryDocuments } from "./documents";
import { createLog } from "./log";
import { MemoryPanels } from "./memoryPanel";
import { onInterpreterChange } from "./python";
import { ServerManager } from "./servers";
import { StatusBar } from "./statusBar";

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = createLog();
  const status = new StatusBar(COMMANDS.search, log);
  const router = new CommandRouter((uri) => manager?.forUri(uri)?.languageClient);
  manager = new ServerManager(log, status, (client) => router.addServerCommands(client));
  const servers = manager;
  const documents = new MemoryDocuments((folder) => servers.forUri(vscode.Uri.parse(folder))?.command);

  const memory = new MemoryPanels(log);

  context.subscriptions.push(log, status, router, documents, memory, { dispose: () => void servers.dispose() });
  context.subscriptions.push(...registerCommands({ manager: servers, router, documents, memory, status, log }));

  // Restricted mode kept the workspace's endpoints, interpreter and server path out; once the
  // person trusts the workspace, start again with them.
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => void servers.restartAll("workspace trusted")),
  );
  const interpreter = await onInterpreterChange(() => void servers.restartAll("Python interpreter changed"));
  if (interpreter !== undefined) context.subscriptions.push(interpreter);

  log.info(`nano-brain extension ${String(context.extension.packageJSON.version)} activated`);
  servers.startAll();
}

export async function deactivate(): Promise<void> {
  await manager?.dispose();
  manager = undefined;
}
