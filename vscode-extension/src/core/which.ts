/** `which` for Node: the first executable called `name` on PATH (PATHEXT on Windows). */

import { constants, promises as fs } from "node:fs";
import * as path from "node:path";

export interface WhichEnv {
  PATH?: string | undefined;
  PATHEXT?: string | undefined;
}

export async function which(
  name: string,
  env: WhichEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((d) => d !== "");
  const exts =
    platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";")] : [""];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        const stat = await fs.stat(candidate);
        if (!stat.isFile()) continue;
        if (platform !== "win32") await fs.access(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
