import type { WorkspaceRoot } from "../fs/workspaceRoot.ts";
import { walkTreeSync } from "../fs/treeWalk.ts";

const BLOCK = 512;

/**
 * Roughly how many bytes a capture's tar will take, from a stat-only walk (no file is read), so
 * a client can show progress against a total. Long names' pax records and the manifest entry
 * are not counted: it is an estimate, never a promise.
 */
export async function estimateCaptureBytes(root: WorkspaceRoot): Promise<number> {
  const top = await root.openRoot();
  let bytes = 2 * BLOCK;
  try {
    for (const entry of walkTreeSync(top.fd)) {
      bytes += BLOCK;
      if (entry.stats.isFile()) bytes += Math.ceil(entry.stats.size / BLOCK) * BLOCK;
    }
  } finally {
    await top.close();
  }
  return bytes;
}
