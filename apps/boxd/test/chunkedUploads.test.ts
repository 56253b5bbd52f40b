// The upload in JSON chunks (uploadBegin/Chunk/Commit/Abort), which an enrolled machine's agent
// serves because its channel carries no streams: against the real file service on a real folder,
// with the clock injected; and once through a real boxd's JSON endpoints.
import { createHash, randomBytes } from "node:crypto";
import { readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChunkedUploads, UPLOAD_IDLE_MS } from "../src/fs/chunkedUploads.ts";
import { DiskWatch } from "../src/fs/diskWatch.ts";
import { WorkspaceRoot } from "../src/fs/workspaceRoot.ts";
import { errorCode, startBoxd, tempFolder } from "./boxdProcess.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const isTemp = (name: string) => name.startsWith(".berth-tmp-");

const opened: WorkspaceRoot[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((root) => root.close()));
});

/** The service over a new folder; `clock.now` is what it reads as the time. */
async function service(options: { limitBytes?: number } = {}) {
  const folder = await tempFolder("chunked-");
  const root = await WorkspaceRoot.open(folder);
  opened.push(root);
  const disk = new DiskWatch({ limitBytes: options.limitBytes, measure: () => Promise.resolve(0) });
  const clock = { now: 0 };
  const uploads = new ChunkedUploads({ root, disk, now: () => clock.now });
  return { folder, uploads, clock };
}

async function namesIn(folder: string): Promise<string[]> {
  return (await readdir(folder)).sort();
}

describe("chunked uploads", () => {
  it("append at exactly the offset received so far, and the file appears whole at commit, not before", async () => {
    const { folder, uploads } = await service();
    const bytes = randomBytes(300_000);
    const { uploadId } = await uploads.begin({ path: "blob.bin", createParents: false });
    expect(
      await uploads.chunk({ uploadId, offset: 0, content: base64(bytes.subarray(0, 100_000)) }),
    ).toEqual({ received: 100_000 });
    // The same chunk again (its answer lost), and one that skips ahead: both refused, nothing written.
    const again = uploads.chunk({
      uploadId,
      offset: 0,
      content: base64(bytes.subarray(0, 100_000)),
    });
    await expect(again).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("offset 100000, not 0") as unknown,
    });
    expect(
      await errorCode(
        uploads.chunk({ uploadId, offset: 200_000, content: base64(bytes.subarray(200_000)) }),
      ),
    ).toBe("invalid_request");
    await uploads.chunk({
      uploadId,
      offset: 100_000,
      content: base64(bytes.subarray(100_000, 200_000)),
    });
    await uploads.chunk({ uploadId, offset: 200_000, content: base64(bytes.subarray(200_000)) });
    // Until the commit only a temp file beside the target holds the bytes.
    const before = await namesIn(folder);
    expect(before).toHaveLength(1);
    expect(isTemp(before[0] ?? "")).toBe(true);

    const written = await uploads.commit({ uploadId });
    expect(written).toEqual({ path: "blob.bin", version: sha256(bytes), size: 300_000 });
    expect(sha256(await readFile(join(folder, "blob.bin")))).toBe(sha256(bytes));
    expect(await namesIn(folder)).toEqual(["blob.bin"]);
    // Committed: the id names nothing any more.
    expect(await errorCode(uploads.chunk({ uploadId, offset: 300_000, content: "" }))).toBe(
      "not_found",
    );
    expect(await errorCode(uploads.commit({ uploadId }))).toBe("not_found");
  });

  it("an unknown upload id is not_found, for every step", async () => {
    const { uploads } = await service();
    const uploadId = "0".repeat(32);
    expect(await errorCode(uploads.chunk({ uploadId, offset: 0, content: "" }))).toBe("not_found");
    expect(await errorCode(uploads.commit({ uploadId }))).toBe("not_found");
    expect(await errorCode(uploads.abort({ uploadId }))).toBe("not_found");
  });

  it("abort removes the temp file and the folders made for it; the target is untouched", async () => {
    const { folder, uploads } = await service();
    await writeFile(join(folder, "keep.txt"), "old");
    const { uploadId } = await uploads.begin({
      path: "deep/er/file.bin",
      createParents: true,
      mode: 0o600,
    });
    await uploads.chunk({ uploadId, offset: 0, content: base64(randomBytes(1000)) });
    expect(await namesIn(folder)).toEqual(["deep", "keep.txt"]);
    expect(await uploads.abort({ uploadId })).toEqual({ ok: true });
    expect(await namesIn(folder)).toEqual(["keep.txt"]);
    expect(await errorCode(uploads.chunk({ uploadId, offset: 1000, content: "" }))).toBe(
      "not_found",
    );

    // The same options committed: the mode is applied, as the streaming upload applies it.
    const next = await uploads.begin({
      path: "deep/er/file.bin",
      createParents: true,
      mode: 0o600,
    });
    await uploads.chunk({ uploadId: next.uploadId, offset: 0, content: base64(Buffer.from("x")) });
    await uploads.commit({ uploadId: next.uploadId });
    expect((await stat(join(folder, "deep/er/file.bin"))).mode & 0o777).toBe(0o600);
  });

  it("checks expectedVersion at begin and again at commit: a file changed meanwhile is a version_conflict, and nothing is left", async () => {
    const { folder, uploads } = await service();
    await writeFile(join(folder, "doc.txt"), "first");
    const first = sha256(Buffer.from("first"));
    expect(
      await errorCode(
        uploads.begin({ path: "doc.txt", expectedVersion: null, createParents: false }),
      ),
    ).toBe("version_conflict");
    const { uploadId } = await uploads.begin({
      path: "doc.txt",
      expectedVersion: first,
      createParents: false,
    });
    await uploads.chunk({ uploadId, offset: 0, content: base64(Buffer.from("mine")) });
    await writeFile(join(folder, "doc.txt"), "theirs");
    expect(await errorCode(uploads.commit({ uploadId }))).toBe("version_conflict");
    expect(await readFile(join(folder, "doc.txt"), "utf8")).toBe("theirs");
    expect(await namesIn(folder)).toEqual(["doc.txt"]);
  });

  it("an upload idle for the limit is removed at the next begin; one still in use is kept", async () => {
    const { folder, uploads, clock } = await service();
    const stale = await uploads.begin({ path: "stale.bin", createParents: false });
    await uploads.chunk({ uploadId: stale.uploadId, offset: 0, content: base64(randomBytes(10)) });
    clock.now = 5 * 60_000;
    const busy = await uploads.begin({ path: "busy.bin", createParents: false });
    expect((await namesIn(folder)).filter(isTemp)).toHaveLength(2);

    clock.now = UPLOAD_IDLE_MS;
    await uploads.chunk({ uploadId: busy.uploadId, offset: 0, content: base64(Buffer.from("b")) });
    const fresh = await uploads.begin({ path: "fresh.bin", createParents: false });
    // The stale one's temp file went at that begin; busy's and fresh's are there.
    expect((await namesIn(folder)).filter(isTemp)).toHaveLength(2);
    expect(
      await errorCode(uploads.chunk({ uploadId: stale.uploadId, offset: 10, content: "" })),
    ).toBe("not_found");
    expect(await uploads.commit({ uploadId: busy.uploadId })).toMatchObject({
      path: "busy.bin",
      size: 1,
    });
    expect(await uploads.commit({ uploadId: fresh.uploadId })).toMatchObject({
      path: "fresh.bin",
      size: 0,
    });
    expect(await namesIn(folder)).toEqual(["busy.bin", "fresh.bin"]);
  });

  it("a chunk past the disk limit is disk_full and ends the upload, its temp file removed", async () => {
    const { folder, uploads } = await service({ limitBytes: 1000 });
    const { uploadId } = await uploads.begin({ path: "big.bin", createParents: false });
    await uploads.chunk({ uploadId, offset: 0, content: base64(randomBytes(600)) });
    expect(
      await errorCode(uploads.chunk({ uploadId, offset: 600, content: base64(randomBytes(600)) })),
    ).toBe("disk_full");
    expect(await namesIn(folder)).toEqual([]);
    expect(await errorCode(uploads.commit({ uploadId }))).toBe("not_found");
  });

  it("are served as boxd's JSON operations", async () => {
    const boxd = await startBoxd();
    try {
      const bytes = randomBytes(50_000);
      const { uploadId } = await boxd.client.uploadBegin({
        path: "via/http.bin",
        createParents: true,
      });
      await boxd.client.uploadChunk({ uploadId, offset: 0, content: base64(bytes) });
      expect(await boxd.client.uploadCommit({ uploadId })).toEqual({
        path: "via/http.bin",
        version: sha256(bytes),
        size: 50_000,
      });
      expect(sha256(await readFile(join(boxd.root, "via/http.bin")))).toBe(sha256(bytes));
      expect(await errorCode(boxd.client.uploadAbort({ uploadId }))).toBe("not_found");
      expect(
        await errorCode(boxd.client.uploadChunk({ uploadId, offset: 0, content: "not base64!" })),
      ).toBe("invalid_request");
    } finally {
      await boxd.stop();
    }
  });
});
