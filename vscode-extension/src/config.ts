/** Reading `nanoBrain.*` for one workspace folder. */

import * as vscode from "vscode";
import { type ReadSettings, SECTION, readSettings } from "./core/settings";

export function folderSettings(folder: vscode.WorkspaceFolder | undefined): ReadSettings {
  const config = vscode.workspace.getConfiguration(SECTION, folder?.uri);
  return readSettings({
    get: (key) => config.get<unknown>(key),
    isSet: (key) => {
      const info = config.inspect(key);
      return (
        info !== undefined &&
        (info.globalValue !== undefined ||
          info.workspaceValue !== undefined ||
          info.workspaceFolderValue !== undefined)
      );
    },
  });
}
