/** Wake Up: the recent-memory digest of a folder in a read-only document. */

import { type Context, pickServer, reportErrors } from "./context";

export function wakeUp(ctx: Context): Promise<void> {
  return reportErrors(ctx, "Wake Up", async () => {
    const server = await pickServer(ctx);
    if (server === undefined) return;
    await ctx.documents.openWakeUp(server.folder);
  });
}
