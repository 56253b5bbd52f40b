import { createManifest, manifestRevision, type ManifestResponse } from "@berth/box-protocol";
import type { WorkspaceRoot } from "../fs/workspaceRoot.ts";
import { ManifestThreads } from "./manifestThreads.ts";

const threads = new ManifestThreads();

/** Starts boxd's worker threads now (manifest builds and hydrates use them), so neither waits. */
export function warmManifestThreads(): void {
  threads.warm();
}

/**
 * The workspace's manifest and revision, every file read from disk and hashed, on every core
 * (ManifestThreads): a restore waits on this before its box may serve.
 */
export async function buildManifest(root: WorkspaceRoot): Promise<ManifestResponse> {
  const top = await root.openRoot();
  try {
    const manifest = createManifest(await threads.run(top.fd, { kind: "folder", path: "" }));
    return { revision: manifestRevision(manifest), manifest };
  } finally {
    await top.close();
  }
}
