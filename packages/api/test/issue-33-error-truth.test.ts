// Issue 33 item 5: every error's `retryable` and message tell the truth about the next call.
// Each test makes one recovery path fail through the real HTTP API (a typed tRPC client reading
// `data.berth`), then makes the NEXT call and checks it does what the first answer said:
// retryable ⇔ the next call succeeds; not retryable ⇔ it is refused again (`blocked`, or the same
// refusal). Real Postgres, real local boxes (killed and their folders removed to lose them), real
// archive blobs (overwritten to corrupt them); the backend's racepoints (@berth/sandbox/testing)
// only make one create, connect or terminate fail, or act at an exact step.
import { mkdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  ArchiveRestorer,
  backendDrainPort,
  BackendError,
  BackendRegistry,
  BoxAccess,
  defaultLeaseConfig,
  FilesystemArchiveStore,
  type LeaseConfig,
  LeaseSystem,
  LocalBackend,
  ReaperSystem,
  SpawnerSystem,
  WorkspaceArchiver,
} from "@berth/sandbox";
import { killBox, ManualClock, RacepointBackend } from "@berth/sandbox/testing";
import type { DbClient } from "@berth/db";
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApi, type AppRouter, type BerthApi, type ServedApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { createTestApi, httpClientAs, testSecret } from "./support/testApi.ts";
import { seedWorkspace } from "./support/world.ts";

/** A short warming timeout: a caller waiting on a dead spawner gives up within it (real time). */
const config: LeaseConfig = { ...defaultLeaseConfig, warmingTimeoutMs: 2_000 };
const clock = new ManualClock();
let racepoints: RacepointBackend;

/** Box services as the web process builds them, over the racepoint backend and the test clock. */
function boxesOver(db: DbClient, options: { restores: boolean }): BoxAccess {
  const resources = { db, clock, config };
  const store = archiveStore();
  const restorer = options.restores ? new ArchiveRestorer({ db, store }) : undefined;
  return new BoxAccess({
    resources,
    backends: BackendRegistry.of(racepoints),
    spawner: new SpawnerSystem({
      resources,
      backends: BackendRegistry.of(racepoints),
      readinessTimeoutMs: 10_000,
      ...(restorer === undefined ? {} : { restorer }),
    }),
    archiver: new WorkspaceArchiver({ resources, backends: BackendRegistry.of(racepoints), store }),
    pollMs: 50,
  });
}

const suite = useApiSuite({
  boxes: ({ db }) => {
    racepoints = new RacepointBackend(localBackend());
    return boxesOver(db, { restores: true });
  },
});

function localBackend(): LocalBackend {
  return new LocalBackend({ dataDir: suite.dataDir, secret: testSecret, isolation: "auto" });
}

function archiveStore(): FilesystemArchiveStore {
  return new FilesystemArchiveStore({ root: join(suite.dataDir, "archives") });
}

let http: ServedApi;
let workspaceId = "";
let token = "";

beforeAll(async () => {
  http = await serveApi(suite.api);
  const world = await seedWorkspace(suite.api, suite.db, "truth");
  workspaceId = world.workspaceId;
  token = world.adminToken;
});
afterAll(async () => {
  await http.close();
});

function client(served: ServedApi = http) {
  return httpClientAs(served, { token });
}

/** How a call ended, as a client sees it: its answer, or `data.berth` and the message. */
type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly berth: { readonly code: string; readonly retryable: boolean };
      readonly message: string;
    };

async function outcome<T>(call: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call };
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const data = error.data as { berth?: { code: string; retryable: boolean } } | undefined;
    if (data?.berth === undefined) throw error;
    return {
      ok: false,
      berth: { code: data.berth.code, retryable: data.berth.retryable },
      message: error.message,
    };
  }
}

/** A failed call's answer; fails the test if the call was answered. */
function refusal<T>(o: Outcome<T>): Extract<Outcome<T>, { ok: false }> {
  if (o.ok) throw new Error(`expected a refusal, got ${JSON.stringify(o.value)}`);
  return o;
}

/**
 * The rule, checked on a pair of calls: the first answer was retryable exactly when the
 * next call succeeded; when it was not, the next call is refused as final too.
 */
function expectTruthful(first: Outcome<unknown>, next: Outcome<unknown>): void {
  const answer = refusal(first);
  if (answer.berth.retryable) {
    expect(next, `${answer.berth.code} said retryable: the next call must succeed`).toMatchObject({
      ok: true,
    });
  } else {
    expect(next, `${answer.berth.code} said final: the next call must be refused`).toMatchObject({
      ok: false,
      berth: { retryable: false },
    });
  }
}

async function newSession(): Promise<{ workspaceId: string; sessionId: string }> {
  const session = await suite.db.session.create({
    data: { workspaceId, sandboxGroupId: crypto.randomUUID(), backend: "local" },
  });
  return { workspaceId, sessionId: session.id };
}

const berth = () => client();
const read = (on: { workspaceId: string; sessionId: string }) =>
  outcome(berth().fs.read.query({ ...on, path: "kept.txt" }));
const write = (on: { workspaceId: string; sessionId: string }, path: string, content: string) =>
  berth().fs.write.mutate({ ...on, path, content });
const capture = (on: { workspaceId: string; sessionId: string }) =>
  outcome(berth().archives.capture.mutate(on));
const openTerminal = (on: { workspaceId: string; sessionId: string }) =>
  outcome(berth().terminal.open.mutate(on));

async function leaseOf(on: { sessionId: string }) {
  const session = await suite.db.session.findUniqueOrThrow({ where: { id: on.sessionId } });
  return suite.db.sandboxLease.findFirstOrThrow({
    where: { workspaceId, sandboxGroupId: session.sandboxGroupId },
  });
}

/** The machine is gone: the box's processes and its folder (a resume cannot bring it back). */
async function loseBox(instanceId: string): Promise<void> {
  await killBox(instanceId);
  await rm(join(suite.dataDir, "boxes", instanceId), { recursive: true, force: true });
}

async function loseBoxOf(on: { sessionId: string }): Promise<void> {
  await loseBox((await leaseOf(on)).instanceId ?? "");
}

/** Where the lease's current archive blob lies in the filesystem store. */
async function blobPathOf(on: { sessionId: string }): Promise<string> {
  const lease = await leaseOf(on);
  const row = await suite.db.workspaceArchive.findFirstOrThrow({
    where: { leaseId: lease.id, revision: lease.archiveRevision ?? "" },
  });
  return join(suite.dataDir, "archives", ...row.storageKey.split("/"));
}

/** A session whose box was lost with a complete archive of "kept.txt": the lease is cold, pending. */
async function lostWithCompleteArchive(): Promise<{ workspaceId: string; sessionId: string }> {
  const on = await newSession();
  await write(on, "kept.txt", "kept");
  expect(await capture(on)).toMatchObject({ ok: true });
  await loseBoxOf(on);
  expect(refusal(await read(on)).berth).toEqual({ code: "instance_lost", retryable: true });
  return on;
}

function reaper(): ReaperSystem {
  const backend = localBackend();
  const store = archiveStore();
  const resources = { db: suite.db, clock, config };
  return new ReaperSystem({
    resources,
    drainPort: backendDrainPort({
      backends: BackendRegistry.of(backend),
      archiver: new WorkspaceArchiver({ resources, backends: BackendRegistry.of(backend), store }),
    }),
  });
}

describe("a lost box", () => {
  it("with a complete archive: instance_lost, retryable, and the next call brings the workspace back", async () => {
    const on = await newSession();
    await write(on, "kept.txt", "kept");
    expect(await capture(on)).toMatchObject({ ok: true });
    await loseBoxOf(on);

    const first = await read(on);
    expect(refusal(first).berth).toEqual({ code: "instance_lost", retryable: true });
    const next = await read(on);
    expectTruthful(first, next);
    expect(next).toMatchObject({ ok: true, value: { content: "kept" } });
  });

  it("with its archive behind: blocked at once, not retryable, and the next call is blocked", async () => {
    const on = await newSession();
    await write(on, "kept.txt", "kept");
    expect(await capture(on)).toMatchObject({ ok: true });
    await write(on, "later.txt", "not archived");
    await loseBoxOf(on);

    const first = refusal(await read(on));
    expect(first.berth).toEqual({ code: "blocked", retryable: false });
    expect(first.message).toMatch(/box is gone/i);
    expect(first.message).toMatch(/misses writes made after it/);
    expect(first.message).toMatch(/an admin must restore another revision or start fresh/);
    const next = await read(on);
    expectTruthful(first, next);
    expect(refusal(next).berth.code).toBe("blocked");
  });

  it("with writes and no archive at all: blocked at once, and the next call is blocked", async () => {
    const on = await newSession();
    await write(on, "kept.txt", "never archived");
    await loseBoxOf(on);

    const first = refusal(await read(on));
    expect(first.berth).toEqual({ code: "blocked", retryable: false });
    expect(first.message).toMatch(/no archive of its workspace exists/);
    const next = await read(on);
    expectTruthful(first, next);
    expect(refusal(next).berth.code).toBe("blocked");
  });
});

describe("a restore", () => {
  it("of a corrupt archive: blocked by the call that finds it, naming the revision; the next call is blocked", async () => {
    const on = await lostWithCompleteArchive();
    const revision = (await leaseOf(on)).archiveRevision ?? "";
    const blob = await blobPathOf(on);
    const bytes = await readFile(blob);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 0xff;
    await writeFile(blob, bytes);

    const first = refusal(await read(on));
    expect(first.berth).toEqual({ code: "blocked", retryable: false });
    expect(first.message).toContain(`cannot be restored from revision ${revision.slice(0, 12)}`);
    expect(first.message).toMatch(/archive_corrupt/);
    expect(first.message).toMatch(/an admin must restore another revision or start fresh/);
    const next = await read(on);
    expectTruthful(first, next);
    expect(refusal(next).berth.code).toBe("blocked");
  });

  it("the store could not read: retryable with its one retry, and the retry restores once it reads", async () => {
    const on = await lostWithCompleteArchive();
    const blob = await blobPathOf(on);
    // A folder where the blob was: the store fails to read it (the store, not the bytes).
    await rename(blob, `${blob}.away`);
    await mkdir(blob);

    const first = refusal(await read(on));
    expect(first.berth).toEqual({ code: "spawn_failed", retryable: true });
    expect(first.message).toMatch(/archive_unverified/);
    expect(first.message).toMatch(/tries the restore once more/);

    await rmdir(blob);
    await rename(`${blob}.away`, blob);
    const next = await read(on);
    expectTruthful(first, next);
    expect(next).toMatchObject({ ok: true, value: { content: "kept" } });
  });

  it("failing again after its one retry: not retryable, blocked, and the next call is blocked", async () => {
    const on = await lostWithCompleteArchive();
    const blob = await blobPathOf(on);
    await rename(blob, `${blob}.away`);
    await mkdir(blob);

    expect(refusal(await read(on)).berth).toEqual({ code: "spawn_failed", retryable: true });
    // The store is still failing: the retry is used, and its answer is final.
    const second = refusal(await read(on));
    expect(second.berth).toEqual({ code: "blocked", retryable: false });
    expect(second.message).toMatch(/archive_unverified/);
    const next = await read(on);
    expectTruthful(second, next);
    expect(refusal(next).berth.code).toBe("blocked");
  });
});

describe("a spawn", () => {
  it("whose create fails: spawn_failed, retryable, and the next call gets a box", async () => {
    const on = await newSession();
    racepoints.arm({ createFails: new BackendError({ code: "unavailable", message: "down" }) });
    const first = await outcome(berth().fs.list.query({ ...on, path: "" }));
    racepoints.arm({});
    expect(refusal(first).berth).toEqual({ code: "spawn_failed", retryable: true });

    const next = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expectTruthful(first, next);
  });

  // Issue 34: a BackendError's code reaches the client through the error table.
  it("whose backend is at capacity: backend_capacity, retryable, and the next call gets a box", async () => {
    const on = await newSession();
    racepoints.arm({ createFails: new BackendError({ code: "capacity", message: "no room" }) });
    const first = await outcome(berth().fs.list.query({ ...on, path: "" }));
    racepoints.arm({});
    expect(refusal(first).berth).toEqual({ code: "backend_capacity", retryable: true });
    expect(refusal(first).message).toContain("no room");

    const next = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expectTruthful(first, next);
  });

  // Issue 35: what the backend diagnosed once a box never served reaches the client typed too.
  it("whose box never served for lack of room: backend_capacity, retryable, and the next call gets a box", async () => {
    const on = await newSession();
    racepoints.arm({
      readyFails: new BackendError({ code: "capacity", message: "its pod cannot be scheduled" }),
    });
    const first = await outcome(berth().fs.list.query({ ...on, path: "" }));
    racepoints.arm({});
    expect(refusal(first).berth).toEqual({ code: "backend_capacity", retryable: true });
    expect(refusal(first).message).toContain("cannot be scheduled");

    const next = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expectTruthful(first, next);
  });

  it("whose backend refuses it as invalid: backend_invalid, final, and refused again", async () => {
    const on = await newSession();
    racepoints.arm({ createFails: new BackendError({ code: "invalid", message: "bad profile" }) });
    const first = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expect(refusal(first).berth).toEqual({ code: "backend_invalid", retryable: false });

    const next = await outcome(berth().fs.list.query({ ...on, path: "" }));
    racepoints.arm({});
    expectTruthful(first, next);
  });

  // Issue 37: a Kubernetes box Ready in its cluster whose pod IP Berth cannot reach (Berth runs
  // outside the cluster): typed, not a 500, final — and refused again while nothing changes.
  it("whose pod IP Berth cannot reach: backend_unreachable_pod_network, final, and refused again", async () => {
    const on = await newSession();
    const unreachable = new BackendError({
      code: "unreachable_pod_network",
      message:
        "box b is Ready in the cluster, but Berth cannot connect to boxd at its pod's IP (connect ECONNREFUSED 10.0.0.7:7070). Berth must run inside the cluster",
    });
    racepoints.arm({ readyFails: unreachable });
    const first = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expect(refusal(first).berth).toEqual({
      code: "backend_unreachable_pod_network",
      retryable: false,
    });
    expect(refusal(first).message).toContain("Berth must run inside the cluster");
    const error = await berth()
      .fs.list.query({ ...on, path: "" })
      .catch((e: unknown) => e);
    expect((error as TRPCClientError<AppRouter>).data?.httpStatus).toBe(412);
    const next = await outcome(berth().fs.list.query({ ...on, path: "" }));
    racepoints.arm({});
    expectTruthful(first, next);
  });

  it("whose box never becomes ready: spawn_failed, retryable, and the next call gets a box", async () => {
    const on = await newSession();
    let failed = false;
    racepoints.arm({
      beforeConnect: () => {
        if (failed) return Promise.resolve();
        failed = true;
        return Promise.reject(new Error("boxd did not answer"));
      },
    });
    const first = await outcome(berth().fs.list.query({ ...on, path: "" }));
    racepoints.arm({});
    expect(refusal(first).berth).toEqual({ code: "spawn_failed", retryable: true });

    const next = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expectTruthful(first, next);
  });

  it("whose failed box could not be stopped: retryable, and after the reaper the next call restores the archive, not the box's empty tree", async () => {
    const on = await lostWithCompleteArchive();
    const archived = (await leaseOf(on)).archiveRevision;
    let failed = false;
    racepoints.arm({
      // The new box runs, but never answers the spawner; and it cannot be stopped.
      beforeConnect: () => {
        if (failed) return Promise.resolve();
        failed = true;
        return Promise.reject(new Error("boxd did not answer"));
      },
      terminateFailsOnce: true,
    });
    const first = refusal(await read(on));
    racepoints.arm({});
    expect(first.berth).toEqual({ code: "spawn_failed", retryable: true });
    expect(first.message).toMatch(/reaper stops that box/);

    // The worker's reaper, once the warming timeout has passed: the box that never went warm is
    // stopped without being captured over the archive.
    clock.advance(config.warmingTimeoutMs + 1);
    await reaper().sweepOnce();
    expect(await leaseOf(on)).toMatchObject({ liveness: "cold", archiveRevision: archived });
    const next = await read(on);
    expectTruthful(first, next);
    expect(next).toMatchObject({ ok: true, value: { content: "kept" } });
  });

  it("on a server with no archive store to restore from: not retryable, and the next call there fails alike", async () => {
    const on = await lostWithCompleteArchive();
    let other: BerthApi | undefined;
    let served: ServedApi | undefined;
    try {
      other = createTestApi(suite.databaseUrl, {
        dataDir: suite.dataDir,
        boxes: ({ db }) => boxesOver(db, { restores: false }),
      });
      served = await serveApi(other);
      const there = client(served);
      const first = await outcome(there.fs.read.query({ ...on, path: "kept.txt" }));
      expect(refusal(first).berth).toEqual({ code: "spawn_failed", retryable: false });
      expect(refusal(first).message).toMatch(/no archive store/);
      const next = await outcome(there.fs.read.query({ ...on, path: "kept.txt" }));
      expectTruthful(first, next);
      expect(refusal(next).berth.code).toBe("spawn_failed");
    } finally {
      await served?.close();
      await other?.close();
    }
    // The lease was left as it was: a server that restores brings the workspace back.
    expect(await read(on)).toMatchObject({ ok: true, value: { content: "kept" } });
  });

  it("that another caller won and never finished: wait_timeout, retryable, and after the reaper the next call gets a box", async () => {
    const on = await newSession();
    // A spawner that won cold -> warming and died before creating anything.
    const leases = new LeaseSystem({ db: suite.db, clock, config });
    const won = await leases.acquire({ ...on, kind: "direct", holderId: "direct:dead-spawner" });
    expect(won.role).toBe("spawner");

    const first = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expect(refusal(first).berth).toEqual({ code: "wait_timeout", retryable: true });

    clock.advance(config.warmingTimeoutMs + 1);
    await reaper().sweepOnce();
    const next = await outcome(berth().fs.list.query({ ...on, path: "" }));
    expectTruthful(first, next);
  });
});

describe("an on-demand capture", () => {
  it("that keeps meeting new writes: capture_refused, retryable, and the next capture publishes", async () => {
    const on = await newSession();
    await write(on, "kept.txt", "kept");
    let writes = 0;
    racepoints.arm({
      afterCapture: async () => {
        writes += 1;
        await write(on, "busy.txt", `write ${String(writes)}`);
      },
    });
    const first = await capture(on);
    racepoints.arm({});
    expect(refusal(first).berth).toEqual({ code: "capture_refused", retryable: true });

    const next = await capture(on);
    expectTruthful(first, next);
  });

  it("that finds the box gone: its loss is marked, and the retryable answer's next call brings the workspace back", async () => {
    const on = await newSession();
    await write(on, "kept.txt", "kept");
    expect(await capture(on)).toMatchObject({ ok: true });
    racepoints.arm({ beforeCapture: (instanceId) => loseBox(instanceId) });
    const first = await capture(on);
    racepoints.arm({});
    expect(refusal(first).berth).toEqual({ code: "instance_lost", retryable: true });

    const next = await capture(on);
    expectTruthful(first, next);
    expect(await read(on)).toMatchObject({ ok: true, value: { content: "kept" } });
  });
});

describe("a terminal whose box is lost between opening and holding it", () => {
  it.each([
    [
      "with a complete archive: fenced, retryable, and the next open succeeds",
      true,
      { code: "fenced", retryable: true },
    ],
    [
      "with writes not archived: blocked, and the next open is blocked",
      false,
      { code: "blocked", retryable: false },
    ],
  ] as const)("%s", async (_, archived, answer) => {
    const on = await newSession();
    await write(on, "kept.txt", "kept");
    if (archived) expect(await capture(on)).toMatchObject({ ok: true });
    racepoints.arm({
      afterOpenTerminal: async (instanceId) => {
        await loseBox(instanceId);
        // Another call meets the gone box and marks the loss.
        await read(on);
      },
    });
    const first = await openTerminal(on);
    racepoints.arm({});
    expect(refusal(first).berth).toEqual(answer);

    const next = await openTerminal(on);
    expectTruthful(first, next);
  });
});
