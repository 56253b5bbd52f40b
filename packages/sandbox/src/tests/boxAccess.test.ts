import { rm } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LocalBackend } from "../backends/local/localBackend.ts";
import { BoxAccess, type BoxCall } from "../services/boxAccess.ts";
import { BoxServiceError } from "../services/boxServiceError.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { seedSession, useLeaseWorld, type LeaseWorld, type SeededSession } from "./leaseFixture.ts";
import { killBox, useLocalBackend } from "./spawnerFixture.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";

// Box services' access path over real Postgres, real boxd processes and real concurrency.

const world = useLeaseWorld();
const local = useLocalBackend();
let backend: LocalBackend;

beforeAll(() => {
  backend = local.backend;
});

function accessFor(w: LeaseWorld, touchEveryMs?: number) {
  const resources = { db: w.db, clock: w.clock, config: w.config };
  const store = new FilesystemArchiveStore({ root: join(local.dataDir, "archives") });
  const restorer = new ArchiveRestorer({ db: w.db, store });
  const spawner = new SpawnerSystem({
    resources,
    backends: BackendRegistry.of(backend),
    restorer,
    readinessTimeoutMs: 10_000,
  });
  return {
    access: new BoxAccess({
      resources,
      backends: BackendRegistry.of(backend),
      spawner,
      pollMs: 50,
      ...(touchEveryMs === undefined ? {} : { touchEveryMs }),
    }),
    archiver: new WorkspaceArchiver({ resources, backends: BackendRegistry.of(backend), store }),
  };
}

function call(s: SeededSession, name: string, writes: boolean): BoxCall {
  return { ...s, requestId: crypto.randomUUID(), operation: { name, writes } };
}

async function boxesOf(leaseId: string) {
  return (await backend.inventory()).filter((box) => box.metadata.leaseId === leaseId);
}

async function failure(promise: Promise<unknown>): Promise<BoxServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof BoxServiceError))
    throw new Error(`expected a BoxServiceError, got ${String(error)}`);
  return error;
}

describe("box access", () => {
  it("20 concurrent reads of a cold session all succeed on exactly one new box", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const { access } = accessFor(w);
    const reads = await Promise.all(
      Array.from({ length: 20 }, () =>
        access.run(call(s, "list", false), ({ box }) => box.list({ path: "." })),
      ),
    );
    expect(reads).toHaveLength(20);
    // Holders are released behind the answers; once those releases land, none is left.
    await access.settled();
    const lease = await w.leases.readByGroup(s);
    // Every holder released: the box waits out its idle grace.
    expect(lease).toMatchObject({ liveness: "draining", holderCount: 0 });
    expect(await boxesOf(lease?.id ?? "")).toHaveLength(1);
    expect(lease?.workspaceGeneration).toBe(0);
  });

  it("20 concurrent writes advance the generation exactly 20, every admission settled", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const { access } = accessFor(w);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        access.run(call(s, "write", true), ({ box }) =>
          box.write({
            path: `f${String(i)}.txt`,
            content: `file ${String(i)}`,
            expectedVersion: null,
          }),
        ),
      ),
    );
    // Each write is settled behind its answer; once those land, every one is settled.
    await access.settled();
    const lease = await w.leases.readByGroup(s);
    expect(lease?.workspaceGeneration).toBe(20);
    const admissions = await w.db.mutationAdmission.findMany({
      where: { leaseId: lease?.id ?? "" },
    });
    expect(admissions).toHaveLength(20);
    expect(admissions.every((a) => a.outcome === "resolved" && a.settledAt !== null)).toBe(true);
    const listed = await access.run(call(s, "list", false), ({ box }) => box.list({ path: "." }));
    expect(listed.entries.map((e) => e.name).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `f${String(i)}.txt`).sort(),
    );
  });

  it("a box found gone is marked lost once, answered instance_lost, and the retry restores the archive", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const { access, archiver } = accessFor(w);
    await access.run(call(s, "write", true), ({ box }) =>
      box.write({ path: "kept.txt", content: "still here", expectedVersion: null }),
    );
    // The write is settled behind its answer; a capture before that lands is refused
    // (admissions_unsettled), as the reaper's would be.
    await access.settled();
    const warm = await w.leases.readByGroup(s);
    if (warm === null) throw new Error("no lease");
    expect((await archiver.capture(warm, { actor: "test" })).kind).toBe("published");
    // The machine is gone: its process and its folder.
    await killBox(warm.instanceId ?? "");
    await rm(join(local.dataDir, "boxes", warm.instanceId ?? ""), { recursive: true, force: true });

    // Five callers at once: those who meet the gone box answer instance_lost and exactly one
    // of them marks the loss; a caller arriving after the mark may already get the restored box.
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        access
          .run(call(s, "read", false), ({ box }) => box.read({ path: "kept.txt" }))
          .then(
            (read) => ({ read }),
            (error: unknown) => ({ error }),
          ),
      ),
    );
    const failures = outcomes.flatMap((o) => ("error" in o ? [o.error] : []));
    expect(failures.length).toBeGreaterThan(0);
    for (const error of failures) {
      expect(error).toBeInstanceOf(BoxServiceError);
      expect([(error as BoxServiceError).code, (error as BoxServiceError).retryable]).toEqual([
        "instance_lost",
        true,
      ]);
    }
    expect(failures.filter((e) => (e as BoxServiceError).detail.marked === true)).toHaveLength(1);
    for (const o of outcomes) if ("read" in o) expect(o.read.content).toBe("still here");
    const losses = await w.db.leaseEvent.count({
      where: { leaseId: warm.id, transition: { contains: "lost" } },
    });
    expect(losses).toBe(1);

    const again = await access.run(call(s, "read", false), ({ box }) =>
      box.read({ path: "kept.txt" }),
    );
    expect(again.content).toBe("still here");
    const after = await w.leases.readByGroup(s);
    expect(after?.instanceId).not.toBe(warm.instanceId);
    expect(after?.restoreStatus).toBe("ready");
  });

  it("a write that finds its unarchived box gone answers blocked (the mark left nothing to restore) and leaves its admission settled, rejected", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const { access } = accessFor(w);
    await access.run(call(s, "write", true), ({ box }) =>
      box.write({ path: "first.txt", content: "1", expectedVersion: null }),
    );
    const warm = await w.leases.readByGroup(s);
    if (warm === null) throw new Error("no lease");
    await killBox(warm.instanceId ?? "");
    await rm(join(local.dataDir, "boxes", warm.instanceId ?? ""), { recursive: true, force: true });

    const lost = await access
      .run(call(s, "write", true), ({ box }) =>
        box.write({ path: "second.txt", content: "2", expectedVersion: null }),
      )
      .catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(BoxServiceError);
    // No archive holds the first write: the next call is refused, so this one says so.
    expect([(lost as BoxServiceError).code, (lost as BoxServiceError).retryable]).toEqual([
      "blocked",
      false,
    ]);
    expect((lost as BoxServiceError).detail).toMatchObject({ marked: true });
    await access.settled();
    const admissions = await w.db.mutationAdmission.findMany({
      where: { leaseId: warm.id },
      orderBy: { generation: "asc" },
    });
    // Admitted with its holder, before the box was reached: an open admission would hold back
    // every capture after it.
    expect(admissions.map((a) => [a.generation, a.outcome, a.settledAt !== null])).toEqual([
      [1, "resolved", true],
      [2, "rejected", true],
    ]);
  });

  it("a blocked lease answers blocked with its restore status and epoch, creating nothing", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const { access } = accessFor(w);
    await w.db.sandboxLease.create({
      data: {
        workspaceId: s.workspaceId,
        sandboxGroupId: s.sandboxGroupId,
        backend: "local",
        expiresAt: new Date(),
        epoch: 7,
        restoreStatus: "unrecoverable",
      },
    });
    const error = await failure(
      access.run(call(s, "read", false), ({ box }) => box.list({ path: "." })),
    );
    expect([error.code, error.retryable, error.epoch, error.detail.restoreStatus]).toEqual([
      "blocked",
      false,
      7,
      "unrecoverable",
    ]);
    const lease = await w.leases.readByGroup(s);
    expect(lease?.holderCount).toBe(0);
    expect(await boxesOf(lease?.id ?? "")).toHaveLength(0);
  });

  it("a long call keeps its holder across the reaper's sweeps (injected clock)", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const { access } = accessFor(w, 50);
    let finish = (): void => undefined;
    const holderSeenAt = async () =>
      (
        await w.db.leaseHolder.findFirst({
          where: { kind: "direct", lease: { sandboxGroupId: s.sandboxGroupId } },
        })
      )?.lastHeartbeatAt.getTime();
    const running = access.run(call(s, "long", false), async ({ box }) => {
      await new Promise<void>((resolve) => (finish = resolve));
      return box.list({ path: "" });
    });
    // Past the viewer TTL twice over, in steps the call's touches keep up with.
    for (let step = 0; step < 4; step += 1) {
      w.clock.advance(w.config.viewerTtlMs / 2);
      const now = (await w.clock.now()).getTime();
      const deadline = Date.now() + 5_000;
      while ((await holderSeenAt()) !== now) {
        if (Date.now() > deadline) throw new Error("the running call never touched its holder");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await w.sweeps.reapHolders();
      expect(
        await w.db.leaseHolder.count({
          where: { kind: "direct", lease: { sandboxGroupId: s.sandboxGroupId } },
        }),
      ).toBe(1);
    }
    finish();
    await expect(running).resolves.toMatchObject({ entries: [] });
    await access.settled();
    expect(await w.leases.readByGroup(s)).toMatchObject({ liveness: "draining", holderCount: 0 });
  });
});
