import { closeSync } from "node:fs";
import {
  createManifest,
  manifestRevision,
  type ManifestEntry,
  type ManifestResponse,
} from "@berth/box-protocol";
import type { WorkspaceRoot } from "../fs/workspaceRoot.ts";
import {
  lineWithoutContent,
  openWalkedFile,
  readFileExactly,
  walkTreeSync,
} from "../fs/treeWalk.ts";

/** The workspace's manifest and revision, every file read from disk and hashed as a stream. */
export async function buildManifest(root: WorkspaceRoot): Promise<ManifestResponse> {
  const top = await root.openRoot();
  const entries: ManifestEntry[] = [];
  try {
    for (const entry of walkTreeSync(top.fd)) {
      if (!entry.stats.isFile()) {
        const line = lineWithoutContent(entry);
        if (line !== undefined) entries.push(line);
        continue;
      }
      const file = openWalkedFile(entry);
      try {
        const sha256 = await readFileExactly(file.fd, file.size);
        entries.push({
          path: entry.path,
          type: "file",
          mode: file.mode & 0o7777,
          size: file.size,
          sha256,
        });
      } finally {
        closeSync(file.fd);
      }
    }
  } finally {
    await top.close();
  }
  const manifest = createManifest(entries);
  return { revision: manifestRevision(manifest), manifest };
}
