import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../testing/manualClock.ts";
import { ArchiveStoreError, type PendingBlobTag } from "./archiveStore.ts";
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

const incoming = () => join(root, ".incoming");

/** A writer in a child process: a tagged pending blob with 64 KiB written, left open. */
async function writer(tag: PendingBlobTag) {
  const argument = JSON.stringify({ root, tag, bytes: 64 * 1024 });
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "..", "tests", "pendingBlobWriter.ts"), argument],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const said = async (word: string) => {
    while (!out.includes(word)) {
      if (child.exitCode !== null) throw new Error(`the writer exited before "${word}"`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await said("writing");
  return { child, said };
}

/** A holder no process is: a pid above any pid_max, on this host. */
const deadHolder = () => ({
  pid: 4_194_304 + 1,
  startTicks: "1",
  bootId: null,
  host: hostname(),
  nonce: "gone",
});

/** A pending blob `id` as a writer left it: its part, and a lock holding `holder` (raw if undefined). */
async function leave(id: string, holder: object | undefined) {
  await mkdir(incoming(), { recursive: true });
  await writeFile(join(incoming(), `${id}.part`), "partial");
  await writeFile(
    join(incoming(), `${id}.lock`),
    holder === undefined ? "" : JSON.stringify(holder),
  );
}

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

  it("locks a pending blob as its writer's while it is written; commit and discard leave nothing", async () => {
    const tag = { leaseId: crypto.randomUUID(), transferId: crypto.randomUUID() };
    const pending = await store.begin(tag);
    pending.sink.end(Buffer.from("bytes"));
    await pending.digest;
    const [lock = "", part = ""] = (await readdir(incoming())).sort();

    expect(part).toMatch(/\.part$/);
    expect(lock).toBe(part.replace(/\.part$/, ".lock"));
    const holder = JSON.parse(await readFile(join(incoming(), lock), "utf8")) as unknown;
    expect(holder).toMatchObject({ pid: process.pid, host: hostname(), tag });
    await pending.commit("k/locked");
    expect(await readdir(incoming())).toEqual([]);

    const dropped = await store.begin(tag);
    await dropped.discard();
    expect(await readdir(incoming())).toEqual([]);
  });

  it("sweeps the blob of a writer killed mid-write, telling its tag; a live writer's stays, however old", async () => {
    const killedTag = { leaseId: crypto.randomUUID(), transferId: crypto.randomUUID() };
    const killed = await writer(killedTag);
    const live = await writer({ leaseId: crypto.randomUUID(), transferId: crypto.randomUUID() });
    killed.child.kill("SIGKILL");
    await once(killed.child, "exit");
    const dayAgo = new Date(Date.now() - 86_400_000);
    for (const name of await readdir(incoming())) {
      await utimes(join(incoming(), name), dayAgo, dayAgo);
    }
    const told: unknown[] = [];

    expect(await store.sweepAbandoned((tag) => Promise.resolve(void told.push(tag)))).toEqual({
      removed: 1,
      deferred: 0,
    });
    expect(told).toEqual([killedTag]);
    expect((await readdir(incoming())).length).toBe(2);
    live.child.stdin.end("k/live\n");
    await live.said("committed");
    expect((await store.digest("k/live")).sizeBytes).toBe(64 * 1024);
    expect(await readdir(incoming())).toEqual([]);
  });

  it("judges a lock held from another host by its heartbeat, never by the lock's age", async () => {
    const clock = new ManualClock();
    const shared = new FilesystemArchiveStore({ root, clock, foreignQuietMs: 120_000 });
    const tag = { leaseId: crypto.randomUUID(), transferId: crypto.randomUUID() };
    await leave("far", { ...deadHolder(), host: "another-host", tag });
    const told: unknown[] = [];
    const sweep = () => shared.sweepAbandoned((t) => Promise.resolve(void told.push(t)));

    expect(await sweep()).toEqual({ removed: 0, deferred: 0 });
    // Its writer touches it (a heartbeat): the wait starts again.
    clock.advance(100_000);
    const touched = new Date(Date.now() + 5_000);
    await utimes(join(incoming(), "far.lock"), touched, touched);
    expect(await sweep()).toEqual({ removed: 0, deferred: 0 });
    clock.advance(100_000);
    expect(await sweep()).toEqual({ removed: 0, deferred: 0 });
    clock.advance(20_000);
    expect(await sweep()).toEqual({ removed: 1, deferred: 0 });
    expect(told).toEqual([tag]);
    expect(await readdir(incoming())).toEqual([]);
  });

  it("sweeps a part without a lock, and a lock whose dead holder had removed its part", async () => {
    await mkdir(incoming(), { recursive: true });
    await writeFile(join(incoming(), "unlocked.part"), "from before locks");
    await writeFile(join(incoming(), "orphan.lock"), JSON.stringify(deadHolder()));

    expect(await store.sweepAbandoned()).toEqual({ removed: 1, deferred: 0 });
    expect(await readdir(incoming())).toEqual([]);
  });

  it("keeps an abandoned blob, tag and all, while telling of it fails", async () => {
    const tag = { leaseId: crypto.randomUUID(), transferId: crypto.randomUUID() };
    await leave("dead", { ...deadHolder(), tag });

    const failing = () => Promise.reject(new Error("database down"));
    expect(await store.sweepAbandoned(failing)).toEqual({ removed: 0, deferred: 1 });
    expect((await readdir(incoming())).sort()).toEqual(["dead.lock", "dead.part"]);
    const told: unknown[] = [];
    expect(await store.sweepAbandoned((t) => Promise.resolve(void told.push(t)))).toEqual({
      removed: 1,
      deferred: 0,
    });
    expect(told).toEqual([tag]);
  });

  it("takes a lock that names no holder only once it is older than a writer needs", async () => {
    await leave("torn", undefined);

    expect(await store.sweepAbandoned()).toEqual({ removed: 0, deferred: 0 });
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(join(incoming(), "torn.lock"), minuteAgo, minuteAgo);
    expect(await store.sweepAbandoned()).toEqual({ removed: 1, deferred: 0 });
  });
});
