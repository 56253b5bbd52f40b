import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { BoxError, compareUtf16, type ManifestEntry } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILES_PER_JOB } from "../src/workspace/manifestJobs.ts";
import { ManifestThreads } from "../src/workspace/manifestThreads.ts";
import { tempFolder } from "./boxdProcess.ts";
import { buildFsThread } from "./fsThreadBuild.ts";
import { fdsInto } from "./openFds.ts";

let workerEntry: URL;
let tree: string;
const pools: ManifestThreads[] = [];

beforeAll(async () => {
  workerEntry = await buildFsThread();
  tree = await writeTree(await tempFolder("manifest-tree-"));
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

function pool(threads: number): ManifestThreads {
  const created = new ManifestThreads({ workerEntry, threads });
  pools.push(created);
  return created;
}

/** A tree with every kind of entry, and one folder big enough to be split across jobs. */
async function writeTree(root: string): Promise<string> {
  await mkdir(join(root, "src/deep/er"), { recursive: true });
  await mkdir(join(root, "empty/nested"), { recursive: true });
  await mkdir(join(root, "many"));
  await mkdir(join(root, "locked"));
  await writeFile(join(root, "src/deep/er/blob.bin"), Buffer.alloc(700_000, 7));
  await writeFile(join(root, "run.sh"), "#!/bin/sh\necho hi\n");
  await chmod(join(root, "run.sh"), 0o755);
  await writeFile(join(root, "empty.txt"), "");
  await writeFile(join(root, "locked/secret"), "s");
  await chmod(join(root, "locked"), 0o700);
  await symlink("src/deep", join(root, "link-to-folder"));
  await symlink("/nowhere/at/all", join(root, "dangling"));
  for (let i = 0; i < FILES_PER_JOB * 3 + 5; i += 1) {
    await writeFile(
      join(root, "many", `file-${String(i).padStart(3, "0")}.txt`),
      `file ${String(i)}\n`,
    );
  }
  // Left out of a manifest: boxd's own temp names, and what is not file, folder or link.
  await writeFile(join(root, ".berth-tmp-deadbeef-write-0123"), "in flight");
  execFileSync("mkfifo", [join(root, "src/a-fifo")]);
  return root;
}

/** The manifest entries of `root` as plain recursion over the fs API reads them. */
async function expectedEntries(root: string, prefix = ""): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  for (const name of await readdir(join(root, prefix))) {
    if (name.startsWith(".berth-tmp-")) continue;
    const path = prefix === "" ? name : `${prefix}/${name}`;
    const stats = await lstat(join(root, path));
    const mode = stats.mode & 0o7777;
    if (stats.isSymbolicLink()) {
      entries.push({
        path,
        type: "symlink",
        mode: 0o777,
        target: await readlink(join(root, path)),
      });
    } else if (stats.isDirectory()) {
      entries.push({ path, type: "dir", mode }, ...(await expectedEntries(root, path)));
    } else if (stats.isFile()) {
      const sha256 = createHash("sha256")
        .update(await readFile(join(root, path)))
        .digest("hex");
      entries.push({ path, type: "file", mode, size: stats.size, sha256 });
    }
  }
  return entries.sort((left, right) => compareUtf16(left.path, right.path));
}

async function manifestOf(threads: ManifestThreads, root: string): Promise<ManifestEntry[]> {
  const fd = openSync(root, "r");
  try {
    const entries = await threads.run(fd, { kind: "folder", path: "" });
    return entries.sort((left, right) => compareUtf16(left.path, right.path));
  } finally {
    closeSync(fd);
  }
}

describe("manifest threads", () => {
  it("list and hash every entry on worker threads as on this one, leaving out temp names and FIFOs", async () => {
    const expected = await expectedEntries(tree);
    expect(expected.filter((entry) => entry.path.startsWith("many/"))).toHaveLength(
      FILES_PER_JOB * 3 + 5,
    );

    const here = await manifestOf(pool(1), tree);
    const threaded = await manifestOf(pool(3), tree);

    expect(here).toEqual(expected);
    expect(threaded).toEqual(expected);
    expect(threaded.map((entry) => entry.path)).not.toContain("src/a-fifo");
  });

  it("keep no descriptor open after a build", async () => {
    const threads = pool(2);
    for (let i = 0; i < 3; i += 1) await manifestOf(threads, tree);
    expect(fdsInto(tree)).toEqual([]);
  });

  it("run builds asked for at once one after the other, each complete", async () => {
    const threads = pool(2);
    const expected = await expectedEntries(tree);
    const builds = await Promise.all([1, 2, 3].map(() => manifestOf(threads, tree)));
    for (const built of builds) expect(built).toEqual(expected);
  });

  it("fail a build with the worker's own error code, and still serve the next build", async () => {
    const root = await tempFolder("manifest-bad-name-");
    await mkdir(join(root, "ok/inner"), { recursive: true });
    await writeFile(join(root, "ok/inner/good.txt"), "g");
    const threads = pool(2);
    expect(await manifestOf(threads, root)).toHaveLength(3);

    // A name that is not UTF-8. Each folder of this chain is the only job there is, and the
    // worker is handed jobs before this thread takes one: the worker lists it.
    const folder = Buffer.from(join(root, "ok/inner/"));
    await writeFile(Buffer.concat([folder, Buffer.from([0x66, 0xff, 0x6f])]), "x");
    const failure = await manifestOf(threads, root).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BoxError);
    expect(failure).toMatchObject({ code: "invalid_name" });
    expect((failure as Error).message).toContain("ok/inner holds 1 name(s) that are not UTF-8");

    await rm(join(root, "ok/inner"), { recursive: true });
    expect(await manifestOf(threads, root)).toEqual(await expectedEntries(root));
  });
});
