import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArchiveStoreError } from "./archiveStore.ts";
import { FilesystemArchiveStore } from "./filesystemArchiveStore.ts";

let root = "";
let store: FilesystemArchiveStore;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "berth-store-"));
  store = new FilesystemArchiveStore({ root });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(bytes: Buffer) {
  const pending = await store.begin();
  pending.sink.end(bytes);
  return { pending, digest: await pending.digest };
}

async function readAll(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await store.open(key)).body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("the filesystem archive store", () => {
  it("stores a blob under its key with the size and sha256 of exactly its bytes", async () => {
    const bytes = Buffer.from("an archive's bytes");
    const { pending, digest } = await write(bytes);
    await pending.commit("workspaces/w/leases/l/r-1.tar.gz");

    expect(digest).toEqual({ sizeBytes: bytes.length, sha256: sha256(bytes) });
    expect(await store.digest("workspaces/w/leases/l/r-1.tar.gz")).toEqual(digest);
    expect(await readAll("workspaces/w/leases/l/r-1.tar.gz")).toEqual(bytes);
    expect(await readdir(join(root, ".incoming"))).toEqual([]);
  });

  it("digests a blob of many read chunks, reporting its bytes as they are hashed", async () => {
    const bytes = randomBytes(3 * 256 * 1024 + 12_345);
    const { pending, digest } = await write(bytes);
    await pending.commit("k/big");
    const seen: number[] = [];

    expect(await store.digest("k/big", (done) => seen.push(done))).toEqual(digest);
    expect(digest.sha256).toBe(sha256(bytes));
    expect(seen).toEqual([1, 2, 3].map((n) => n * 256 * 1024).concat(bytes.length));
  });

  it("fails a digest whose progress listener throws, as a store error", async () => {
    const { pending } = await write(randomBytes(600 * 1024));
    await pending.commit("k/listened");
    const failing = store.digest("k/listened", () => {
      throw new Error("listener broke");
    });

    await expect(failing).rejects.toMatchObject({ code: "io", message: /listener broke/ });
    expect((await store.digest("k/listened")).sizeBytes).toBe(600 * 1024);
  });

  it("never overwrites a blob: a second commit under the same key fails and keeps the first", async () => {
    const first = await write(Buffer.from("first"));
    await first.pending.commit("k/blob");
    const second = await write(Buffer.from("second"));

    await expect(second.pending.commit("k/blob")).rejects.toMatchObject({ code: "exists" });
    expect((await readAll("k/blob")).toString()).toBe("first");
    expect(await readdir(join(root, ".incoming"))).toEqual([]);
  });

  it("discards a pending blob without a trace, and settles it only once", async () => {
    const { pending } = await write(Buffer.from("dropped"));
    await pending.discard();

    expect(await readdir(join(root, ".incoming"))).toEqual([]);
    await expect(pending.commit("k/late")).rejects.toThrow(/once/);
    expect(await store.has("k/late")).toBe(false);
  });

  it("answers not_found for a missing blob and treats its removal as done", async () => {
    await expect(store.open("k/none")).rejects.toMatchObject({ code: "not_found" });
    await expect(store.digest("k/none")).rejects.toBeInstanceOf(ArchiveStoreError);
    await expect(store.remove("k/none")).resolves.toBeUndefined();
  });

  it("refuses keys that could leave the store or hide in its temp folder", async () => {
    for (const key of ["../escape", "a/../../b", "/abs", "a//b", ".incoming/x", "a/.hidden", ""]) {
      await expect(store.open(key), key).rejects.toMatchObject({ code: "invalid_key" });
    }
  });

  it("sweeps pending blobs a killed process left, and only old ones", async () => {
    const abandoned = await store.begin();
    abandoned.sink.end(Buffer.from("left behind"));
    await abandoned.digest;
    const [name = ""] = await readdir(join(root, ".incoming"));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(root, ".incoming", name), hourAgo, hourAgo);
    const live = await store.begin();

    expect(await store.sweepAbandoned(600_000)).toBe(1);
    live.sink.end(Buffer.from("still writing"));
    await live.commit("k/live");
    expect(await store.has("k/live")).toBe(true);
  });
});
