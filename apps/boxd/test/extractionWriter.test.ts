import { createHash, randomBytes } from "node:crypto";
import { closeSync, openSync, readdirSync, realpathSync } from "node:fs";
import { lstat, mkdir, readFile, readlink, stat } from "node:fs/promises";
import { join } from "node:path";
import { BoxError } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractionWriter, type ExtractionWriter } from "../src/workspace/extractionWriter.ts";
import { stopFsThreads } from "../src/workspace/fsThreads.ts";
import { tempFolder } from "./boxdProcess.ts";
import { buildFsThread } from "./fsThreadBuild.ts";
import { fdsInto } from "./openFds.ts";

let threadEntry: URL;
beforeAll(async () => {
  threadEntry = await buildFsThread();
});
afterAll(async () => {
  await stopFsThreads(threadEntry);
});

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A staging folder, held open as hydrate holds one, for the length of `use`. */
async function withStaging<T>(use: (fd: number, folder: string) => Promise<T>): Promise<T> {
  const folder = await tempFolder("extraction-");
  const fd = openSync(folder, "r");
  try {
    return await use(fd, folder);
  } finally {
    closeSync(fd);
  }
}

/** What `steps`, and the finish after them, fail with; the writer is aborted after, as hydrate does. */
async function failureOf(writer: ExtractionWriter, steps: () => Promise<void>): Promise<unknown> {
  const failure = await steps()
    .then(() => writer.finish())
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  await writer.abort();
  return failure;
}

describe.each([
  ["here, call by call", () => undefined],
  ["on the worker thread", () => threadEntry],
])("an extraction writer %s", (_, entryOf) => {
  const writerFor = (fd: number): ExtractionWriter =>
    extractionWriter(fd, { threadEntry: entryOf() });

  it("creates folders, links and files with their bytes, modes and times, and hashes each file", async () => {
    const big = randomBytes(3 * 1024 * 1024 + 11);
    const mtime = new Date("2020-02-02T02:02:02.000Z");
    await withStaging(async (fd, folder) => {
      const writer = writerFor(fd);
      await writer.mkdir("src", 0o755);
      await writer.mkdir("src/deep", 0o700);
      await writer.openFile("src/deep/big.bin", 0o640);
      // In pieces, as the parser hands a body on: some cross the thread's batch buffers.
      for (let at = 0; at < big.length; at += 100_000)
        await writer.write(big.subarray(at, at + 100_000));
      await writer.closeFile(0o640, mtime);
      await writer.openFile("empty", 0o000);
      await writer.closeFile(0o000, undefined);
      await writer.symlink("src/link", "deep/big.bin");
      await writer.openFile("run.sh", 0o755);
      await writer.write(Buffer.from("#!/bin/sh\n"));
      await writer.closeFile(0o755, mtime);

      expect(await writer.finish()).toEqual([
        sha256(big),
        sha256(Buffer.alloc(0)),
        sha256(Buffer.from("#!/bin/sh\n")),
      ]);
      expect((await readFile(join(folder, "src/deep/big.bin"))).equals(big)).toBe(true);
      expect((await stat(join(folder, "src/deep/big.bin"))).mtime).toEqual(mtime);
      expect((await stat(join(folder, "src/deep/big.bin"))).mode & 0o7777).toBe(0o640);
      expect((await stat(join(folder, "empty"))).mode & 0o7777).toBe(0o000);
      expect((await stat(join(folder, "run.sh"))).mode & 0o7777).toBe(0o755);
      expect((await lstat(join(folder, "src/deep"))).mode & 0o7777).toBe(0o700);
      expect(await readlink(join(folder, "src/link"))).toBe("deep/big.bin");
      // Every folder and file it opened is closed again: only the staging folder's own fd stays.
      expect(fdsInto(folder)).toEqual([realpathSync(folder)]);
    });
  });

  it("fails with the archive's fault when a file would land on an existing entry, and writes nothing after", async () => {
    await withStaging(async (fd, folder) => {
      const writer = writerFor(fd);
      await writer.openFile("twice.txt", 0o644);
      await writer.closeFile(0o644, undefined);
      const failure = await failureOf(writer, async () => {
        await writer.openFile("twice.txt", 0o644);
        await writer.closeFile(0o644, undefined);
        await writer.openFile("after.txt", 0o644);
        await writer.closeFile(0o644, undefined);
      });

      expect(failure).toBeInstanceOf(BoxError);
      expect(failure).toMatchObject({
        code: "invalid_archive",
        message: "twice.txt: appears twice in the archive",
      });
      expect(readdirSync(folder)).toEqual(["twice.txt"]);
    });
  });

  it("refuses to write below a file or through a link the tree holds", async () => {
    await withStaging(async (fd) => {
      const writer = writerFor(fd);
      await writer.openFile("plain", 0o644);
      await writer.closeFile(0o644, undefined);
      const belowFile = await failureOf(writer, () => writer.openFile("plain/inside", 0o644));
      expect(belowFile).toMatchObject({
        code: "invalid_archive",
        message: "plain: is not a folder, and entries follow below it",
      });
    });
    await withStaging(async (fd, folder) => {
      await mkdir(join(folder, "real"));
      const writer = writerFor(fd);
      await writer.symlink("link", "real");
      const throughLink = await failureOf(writer, () => writer.openFile("link/inside", 0o644));
      // Opened as a folder without following it, a link reads as no folder at all. (hydrate
      // refuses the archive's own links before any write: missingParents.)
      expect(throughLink).toMatchObject({
        code: "invalid_archive",
        message: "link: is not a folder, and entries follow below it",
      });
      expect(readdirSync(join(folder, "real"))).toEqual([]);
    });
  });
});

describe("an extraction writer on a worker thread that dies", () => {
  it("fails the extraction, and the next one runs on a new thread", async () => {
    await withStaging(async (fd) => {
      const writer = extractionWriter(fd, { threadEntry });
      await writer.mkdir("a", 0o755);
      await stopFsThreads(threadEntry);
      const failure = await writer.finish().catch((error: unknown) => error);
      expect(String(failure)).toContain("the extraction thread failed");
    });
    await withStaging(async (fd, folder) => {
      const writer = extractionWriter(fd, { threadEntry });
      await writer.openFile("ok.txt", 0o644);
      await writer.write(Buffer.from("ok"));
      await writer.closeFile(0o644, undefined);
      expect(await writer.finish()).toEqual([sha256(Buffer.from("ok"))]);
      expect(await readFile(join(folder, "ok.txt"), "utf8")).toBe("ok");
    });
  });
});
