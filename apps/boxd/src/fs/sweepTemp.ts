import type { Logger } from "pino";
import { removeTree } from "./removeTree.ts";
import { isStaleTempName } from "./tempNames.ts";
import { walkTreeSync } from "./treeWalk.ts";
import type { WorkspaceRoot } from "./workspaceRoot.ts";

/**
 * Deletes temp files and staging folders that an earlier boxd left behind when it was killed
 * mid-write or mid-hydrate. Runs in the background at start and never fails the daemon:
 * readers never see these names anyway (they are filtered out), this only gives the space back.
 */
export async function sweepStaleTemp(root: WorkspaceRoot, logger: Logger): Promise<number> {
  let removed = 0;
  try {
    const top = await root.openRoot();
    try {
      const walk = walkTreeSync(top.fd, {
        includeTemp: true,
        descend: (entry) => !isStaleTempName(entry.name),
      });
      for (const entry of walk) {
        if (!isStaleTempName(entry.name)) continue;
        await removeTree({ fd: entry.parentFd }, entry.name);
        removed += 1;
      }
    } finally {
      await top.close();
    }
  } catch (error) {
    logger.warn({ err: error }, "sweeping stale temp files stopped early");
  }
  if (removed > 0) logger.info({ removed }, "removed temp files left by an earlier run");
  return removed;
}
