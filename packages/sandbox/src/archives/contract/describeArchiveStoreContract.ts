import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArchiveStoreError, type ArchiveStore, type PendingBlobTag } from "../archiveStore.ts";
import type { ArchiveStoreContractFixture, ArchiveStoreContractSetup } from "./contractFixture.ts";

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const newTag = (): PendingBlobTag => ({ leaseId: randomUUID(), transferId: randomUUID() });

async function write(store: ArchiveStore, bytes: Buffer, tag?: PendingBlobTag) {
  const pending = await store.begin(tag);
  pending.sink.end(bytes);
  return { pending, digest: await pending.digest };
}

async function readAll(store: ArchiveStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await store.open(key)).body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The ArchiveStore port's contract as vitest tests, for any adapter: its test file calls this
 * with a setup that makes a fresh, empty store per test. What only one adapter can show (the
 * filesystem store's lock files, a killed writer process) stays in that adapter's own tests.
 */
export function describeArchiveStoreContract(name: string, setup: ArchiveStoreContractSetup): void {
  describe(`ArchiveStore contract: ${name}`, () => {
    let fixture: ArchiveStoreContractFixture | undefined;
    const fix = (): ArchiveStoreContractFixture => {
      if (fixture === undefined) throw new Error("the contract fixture is made before each test");
      return fixture;
    };
    const store = () => fix().store;

    beforeEach(async () => {
      fixture = await setup();
    });
    afterEach(async () => {
      await fixture?.dispose();
      fixture = undefined;
    });

    it("stores a blob under its key with the size and sha256 of exactly its bytes", async () => {
      const bytes = Buffer.from("an archive's bytes");
      const { pending, digest } = await write(store(), bytes);
      await pending.commit("workspaces/w/leases/l/r-1.tar.gz");

      expect(digest).toEqual({ sizeBytes: bytes.length, sha256: sha256(bytes) });
      expect(await store().digest("workspaces/w/leases/l/r-1.tar.gz")).toEqual(digest);
      expect(await readAll(store(), "workspaces/w/leases/l/r-1.tar.gz")).toEqual(bytes);
      const opened = await store().open("workspaces/w/leases/l/r-1.tar.gz");
      opened.body.destroy();
      expect(opened.sizeBytes).toBe(bytes.length);
      expect(await fix().pendingCount()).toBe(0);
    });

    it("stores an empty blob", async () => {
      const { pending, digest } = await write(store(), Buffer.alloc(0));
      await pending.commit("k/empty");

      expect(digest).toEqual({ sizeBytes: 0, sha256: sha256(Buffer.alloc(0)) });
      expect(await store().digest("k/empty")).toEqual(digest);
    });

    it("digests a blob of many megabytes, reporting its bytes as they are hashed", async () => {
      const bytes = randomBytes(6 * 1024 * 1024 + 12_345);
      const { pending, digest } = await write(store(), bytes);
      await pending.commit("k/big");
      const seen: number[] = [];

      expect(await store().digest("k/big", (done) => seen.push(done))).toEqual(digest);
      expect(digest).toEqual({ sizeBytes: bytes.length, sha256: sha256(bytes) });
      expect(seen.length).toBeGreaterThan(1);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen.at(-1)).toBe(bytes.length);
      // Compared by hash: a deep equality of megabytes takes vitest minutes.
      expect(sha256(await readAll(store(), "k/big"))).toBe(digest.sha256);
    });

    it("fails a digest whose progress listener throws, as a store error", async () => {
      const { pending } = await write(store(), randomBytes(600 * 1024));
      await pending.commit("k/listened");
      const failing = store().digest("k/listened", () => {
        throw new Error("listener broke");
      });

      await expect(failing).rejects.toMatchObject({ code: "io", message: /listener broke/ });
      expect((await store().digest("k/listened")).sizeBytes).toBe(600 * 1024);
    });

    it("never overwrites a blob: a second commit under the same key fails and keeps the first", async () => {
      const first = await write(store(), Buffer.from("first"));
      await first.pending.commit("k/blob");
      const second = await write(store(), Buffer.from("second"));

      await expect(second.pending.commit("k/blob")).rejects.toMatchObject({ code: "exists" });
      expect((await readAll(store(), "k/blob")).toString()).toBe("first");
      expect(await fix().pendingCount()).toBe(0);
    });

    it("discards a pending blob without a trace, and settles it only once", async () => {
      const { pending } = await write(store(), Buffer.from("dropped"));
      await pending.discard();

      expect(await fix().pendingCount()).toBe(0);
      await expect(pending.commit("k/late")).rejects.toThrow(/once/);
      await expect(store().open("k/late")).rejects.toMatchObject({ code: "not_found" });
    });

    it("discards a pending blob whose sink was never ended", async () => {
      const pending = await store().begin(newTag());
      pending.sink.write(Buffer.from("half an archive"));
      await pending.discard();

      expect(await fix().pendingCount()).toBe(0);
    });

    it("tells whether a blob is stored, without reading it", async () => {
      expect(await store().exists("k/present")).toBe(false);
      const { pending } = await write(store(), Buffer.from("present"));
      expect(await store().exists("k/present")).toBe(false);
      await pending.commit("k/present");
      expect(await store().exists("k/present")).toBe(true);
      // A folder of keys is no blob.
      expect(await store().exists("k")).toBe(false);
      await store().remove("k/present");
      expect(await store().exists("k/present")).toBe(false);
      await expect(store().exists("../k")).rejects.toMatchObject({ code: "invalid_key" });
    });

    it("answers not_found for a missing blob and treats its removal as done", async () => {
      await expect(store().open("k/none")).rejects.toMatchObject({ code: "not_found" });
      await expect(store().digest("k/none")).rejects.toMatchObject({ code: "not_found" });
      await expect(store().digest("k/none")).rejects.toBeInstanceOf(ArchiveStoreError);
      await expect(store().remove("k/none")).resolves.toBeUndefined();
    });

    it("removes a blob: it is gone, and its key may be stored again", async () => {
      const first = await write(store(), Buffer.from("first"));
      await first.pending.commit("k/removed");
      await store().remove("k/removed");

      await expect(store().open("k/removed")).rejects.toMatchObject({ code: "not_found" });
      const again = await write(store(), Buffer.from("again"));
      await again.pending.commit("k/removed");
      expect((await readAll(store(), "k/removed")).toString()).toBe("again");
    });

    it("refuses keys that could leave the store or hide in its temp folder", async () => {
      for (const key of [
        "../escape",
        "a/../../b",
        "/abs",
        "a//b",
        ".incoming/x",
        "a/.hidden",
        "",
      ]) {
        await expect(store().open(key), key).rejects.toMatchObject({ code: "invalid_key" });
        await expect(store().digest(key), key).rejects.toMatchObject({ code: "invalid_key" });
        await expect(store().remove(key), key).rejects.toMatchObject({ code: "invalid_key" });
      }
      const { pending } = await write(store(), Buffer.from("bytes"));
      await expect(pending.commit("../escape")).rejects.toMatchObject({ code: "invalid_key" });
    });

    it("keeps a live writer's pending blob through a sweep; it commits afterwards", async () => {
      const pending = await store().begin(newTag());
      pending.sink.write(Buffer.from("still writing"));
      const told: unknown[] = [];

      expect(await store().sweepAbandoned((t) => Promise.resolve(void told.push(t)))).toEqual({
        removed: 0,
        deferred: 0,
      });
      expect(told).toEqual([]);
      pending.sink.end(Buffer.from(", done"));
      await pending.commit("k/live");
      expect((await readAll(store(), "k/live")).toString()).toBe("still writing, done");
      expect(await fix().pendingCount()).toBe(0);
    });

    it("sweeps a dead writer's pending blob, telling its tag once", async (context) => {
      const { abandon } = fix();
      if (abandon === undefined) return context.skip("this adapter cannot stage a dead writer");
      const tag = newTag();
      await abandon(tag);
      const told: unknown[] = [];
      const sweep = () => store().sweepAbandoned((t) => Promise.resolve(void told.push(t)));

      expect(await sweep()).toEqual({ removed: 1, deferred: 0 });
      expect(told).toEqual([tag]);
      expect(await fix().pendingCount()).toBe(0);
      expect(await sweep()).toEqual({ removed: 0, deferred: 0 });
    });

    it("keeps an abandoned blob, tag and all, while telling of it fails", async (context) => {
      const { abandon } = fix();
      if (abandon === undefined) return context.skip("this adapter cannot stage a dead writer");
      const tag = newTag();
      await abandon(tag);

      const failing = () => Promise.reject(new Error("database down"));
      expect(await store().sweepAbandoned(failing)).toEqual({ removed: 0, deferred: 1 });
      expect(await fix().pendingCount()).toBe(1);
      const told: unknown[] = [];
      expect(await store().sweepAbandoned((t) => Promise.resolve(void told.push(t)))).toEqual({
        removed: 1,
        deferred: 0,
      });
      expect(told).toEqual([tag]);
    });
    it("tells where it is and that it answers", async () => {
      expect(await store().health()).toMatchObject({ reachable: true, location: fix().location });
    });

    it("tells it does not answer, and what to check, while cut off; answers again once back", async () => {
      const { location } = fix();
      const back = await fix().outage();
      try {
        const health = await store().health({ timeoutMs: 2_000 });
        expect(health).toMatchObject({ reachable: false, location });
        expect(health.reachable ? "" : health.problem).toMatch(/check/);
        // The capture a health report warns of fails as a store error, not a crash.
        const failed = await store()
          .begin()
          .then(async (pending) => {
            pending.sink.end(Buffer.from("bytes"));
            await pending.commit("k/cut-off");
          })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(failed).toBeInstanceOf(Error);
      } finally {
        await back();
      }
      expect(await store().health()).toMatchObject({ reachable: true, location });
    });
  });
}
