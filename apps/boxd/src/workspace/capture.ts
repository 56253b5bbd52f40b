import { once } from "node:events";
import { closeSync } from "node:fs";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  canonicalJson,
  createManifest,
  MANIFEST_PAX_KEY,
  MANIFEST_TAR_ENTRY,
  manifestRevision,
  type Manifest,
  type ManifestEntry,
  type PaxHeaders,
} from "@berth/box-protocol";
import { pack, type Pack } from "tar-stream";
import type { WorkspaceRoot } from "../fs/workspaceRoot.ts";
import {
  lineWithoutContent,
  openWalkedFile,
  readFileExactly,
  walkTreeSync,
} from "../fs/treeWalk.ts";

/**
 * Streams a tar of the workspace into `destination`, and builds the manifest from the very
 * chunks that enter the archive (each chunk is hashed, then written), so the manifest cannot
 * describe bytes other than the archived ones even while files change. The manifest goes in
 * as the archive's last entry (`.berth-manifest.json`, marked by the pax record
 * BERTH.manifest=1): the archive carries its own description wherever it is stored, and a
 * reader verifies it by re-hashing the entries. Memory stays at one chunk plus the manifest.
 */
export async function captureWorkspace(
  root: WorkspaceRoot,
  destination: Writable,
): Promise<{ revision: string; entries: number }> {
  const archive = pack();
  const sending = pipeline(archive, destination);
  // A client that hangs up fails `sending`; the walk below notices at its next write.
  sending.catch(() => undefined);
  const entries: ManifestEntry[] = [];
  const top = await root.openRoot();
  try {
    for (const entry of walkTreeSync(top.fd)) {
      const mtime = entry.stats.mtime;
      if (!entry.stats.isFile()) {
        const line = lineWithoutContent(entry);
        if (line === undefined) continue;
        entries.push(line);
        if (line.type === "dir") {
          const mode = entry.stats.mode;
          await addEntry(archive, { name: `${line.path}/`, type: "directory", mode, mtime });
        } else if (line.type === "symlink") {
          const symlink = { name: line.path, type: "symlink" as const, linkname: line.target };
          await addEntry(archive, { ...symlink, mode: entry.stats.mode, mtime });
        }
        continue;
      }
      const file = openWalkedFile(entry);
      try {
        const { size, mode } = file;
        // The full st_mode: tar keeps only the permission bits, but tar-stream replaces a
        // mode of 0 with 0o644, and the file-type bits keep a 0o000 file's mode nonzero.
        const header = { name: entry.path, type: "file" as const, size, mode, mtime };
        const body = archive.entry(normalized(header));
        const done = once(body, "finish");
        // If the read below fails, the archive is destroyed and `done` rejects unawaited.
        done.catch(() => undefined);
        const sha256 = await readFileExactly(file.fd, size, async (chunk) => {
          if (!body.write(chunk)) await once(body, "drain");
        });
        body.end();
        await done;
        entries.push({ path: entry.path, type: "file", mode: mode & 0o7777, size, sha256 });
      } finally {
        closeSync(file.fd);
      }
    }
  } catch (error) {
    archive.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  } finally {
    await top.close();
  }
  const manifest = createManifest(entries);
  await addManifestEntry(archive, manifest);
  archive.finalize();
  await sending;
  return { revision: manifestRevision(manifest), entries: entries.length };
}

/**
 * The manifest as the archive's last entry, in canonical JSON (so its hash is the revision),
 * written entry by entry: a large tree's manifest is never held as one string.
 */
async function addManifestEntry(archive: Pack, manifest: Manifest): Promise<void> {
  const head = Buffer.from('{"entries":[', "utf8");
  const tail = Buffer.from(`],"format":${JSON.stringify(manifest.format)}}`, "utf8");
  const line = (index: number) => {
    const json = canonicalJson(manifest.entries[index] ?? null);
    return Buffer.from(index === 0 ? json : `,${json}`, "utf8");
  };
  let size = head.byteLength + tail.byteLength;
  for (let index = 0; index < manifest.entries.length; index += 1) size += line(index).byteLength;
  const marker: PaxHeaders = {
    name: MANIFEST_TAR_ENTRY,
    type: "file",
    size,
    mode: 0o100644,
    mtime: new Date(0),
    pax: { [MANIFEST_PAX_KEY]: "1" },
  };
  const body = archive.entry(normalized(marker));
  const done = once(body, "finish");
  done.catch(() => undefined);
  const write = async (chunk: Buffer) => {
    if (!body.write(chunk)) await once(body, "drain");
  };
  await write(head);
  for (let index = 0; index < manifest.entries.length; index += 1) await write(line(index));
  await write(tail);
  body.end();
  await done;
}

/** Deterministic owner fields: archives carry content and modes, not this machine's users. */
function normalized<T extends PaxHeaders>(header: T): T {
  return { ...header, uid: 0, gid: 0, uname: "", gname: "" };
}

async function addEntry(archive: Pack, header: PaxHeaders): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    archive.entry(normalized(header), (error) => {
      if (error) reject(error);
      else resolve();
    });
  });
}
