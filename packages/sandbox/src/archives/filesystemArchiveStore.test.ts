import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../testing/manualClock.ts";
import type { PendingBlobTag } from "./archiveStore.ts";
import { describeArchiveStoreContract } from "./contract/index.ts";
import { FilesystemArchiveStore } from "./filesystemArchiveStore.ts";

let root = "";
let store: FilesystemArchiveStore;

async function write(bytes: Buffer) {
  const pending = await store.begin();
  pending.sink.end(bytes);
  return { pending, digest: await pending.digest };
}

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
async function leaveIn(folder: string, id: string, holder: object | undefined) {
  const into = join(folder, ".incoming");
  await mkdir(into, { recursive: true });
  await writeFile(join(into, `${id}.part`), "partial");
  await writeFile(join(into, `${id}.lock`), holder === undefined ? "" : JSON.stringify(holder));
}
const leave = (id: string, holder: object | undefined) => leaveIn(root, id, holder);

describeArchiveStoreContract("filesystem", async () => {
  const folder = await mkdtemp(join(tmpdir(), "berth-store-contract-"));
  const pendingIn = async () => {
    const names = await readdir(join(folder, ".incoming")).catch(() => []);
    return new Set(names.map((name) => name.replace(/\.(?:part|lock)$/, ""))).size;
  };
  return {
    store: new FilesystemArchiveStore({ root: folder }),
    pendingCount: pendingIn,
    // A writer killed mid-capture: its part, and its lock naming a process that is gone.
    abandon: (tag) => leaveIn(folder, randomUUID(), { ...deadHolder(), tag }),
    location: pathToFileURL(folder).href,
    // The disk gone from under it: its folder moved away, a file where it was.
    outage: async () => {
      await rename(folder, `${folder}.away`);
      await writeFile(folder, "not a folder");
      return async () => {
        await rm(folder);
        await rename(`${folder}.away`, folder);
      };
    },
    dispose: () => rm(folder, { recursive: true, force: true }),
  };
});

describe("the filesystem archive store, beyond the contract", () => {
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "berth-store-"));
    store = new FilesystemArchiveStore({ root });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("digests a blob in 256 KiB reads, reporting its bytes after each", async () => {
    const bytes = randomBytes(3 * 256 * 1024 + 12_345);
    const { pending, digest } = await write(bytes);
    await pending.commit("k/big");
    const seen: number[] = [];

    expect(await store.digest("k/big", (done) => seen.push(done))).toEqual(digest);
    expect(seen).toEqual([1, 2, 3].map((n) => n * 256 * 1024).concat(bytes.length));
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

  it("takes a lock that names no holder only once it is older than a writer needs", async () => {
    await leave("torn", undefined);

    expect(await store.sweepAbandoned()).toEqual({ removed: 0, deferred: 0 });
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(join(incoming(), "torn.lock"), minuteAgo, minuteAgo);
    expect(await store.sweepAbandoned()).toEqual({ removed: 1, deferred: 0 });
  });
});
