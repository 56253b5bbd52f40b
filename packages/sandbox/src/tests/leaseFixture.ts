import { createDbClient, type DbClient, type DbClientOrTx } from "@berth/db";
import { useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll } from "vitest";
import { defaultLeaseConfig, type LeaseConfig } from "../lease/config.ts";
import { LeaseSystem } from "../lease/leaseSystem.ts";
import type { LeaseResources } from "../lease/resources.ts";
import { LeaseSweepSystem } from "../lease/sweepSystem.ts";
import { WarmingSystem } from "../lease/warmingSystem.ts";
import { AdmissionSystem } from "../lease/admissionSystem.ts";
import { RecoverySystem } from "../lease/recoverySystem.ts";
import { ReaperSystem } from "../reaper/reaperSystem.ts";
import { InMemoryDrainPort } from "../testing/inMemoryDrainPort.ts";
import { ManualClock } from "../testing/manualClock.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { RecordedConfinement } from "../lease/confinement.ts";

/** The most connections a scenario file opens (the bound). */
export const MAX_CONNECTIONS = 40;

export interface Systems {
  readonly leases: LeaseSystem;
  readonly warming: WarmingSystem;
  readonly sweeps: LeaseSweepSystem;
  readonly recovery: RecoverySystem;
  readonly admissions: AdmissionSystem;
  readonly reaper: ReaperSystem;
}

export interface LeaseWorld extends Systems {
  readonly db: DbClient;
  /** The database's URL, for a raw connection of one's own. */
  readonly url: string;
  readonly clock: ManualClock;
  readonly config: LeaseConfig;
  /** Boxes that exist only in memory, captured and stopped by the world's reaper. */
  readonly drainPort: InMemoryDrainPort;
  /** The same systems over another client or transaction (to pin a connection). */
  readonly on: (db: DbClientOrTx) => Systems;
}

/**
 * A database for the file and, per test, a fresh world: a clock in the year 2000 (a stray SQL
 * now() would show as a 26-year gap) and lease systems over a pool of up to 40 connections.
 */
export function useLeaseWorld(config: LeaseConfig = defaultLeaseConfig): {
  readonly current: LeaseWorld;
} {
  const database = useTestDatabase();
  let db: DbClient | undefined;
  beforeAll(() => {
    db = createDbClient({
      connectionString: database.current.url,
      maxConnections: MAX_CONNECTIONS,
    });
  });
  afterAll(async () => {
    await db?.$disconnect();
  });
  return {
    get current(): LeaseWorld {
      if (db === undefined) throw new Error("useLeaseWorld: read .current inside a test");
      const clock = new ManualClock();
      const drainPort = new InMemoryDrainPort({ db, clock, config });
      const systemsOn = (client: DbClientOrTx): Systems => {
        const resources: LeaseResources = { db: client, clock, config };
        return {
          leases: new LeaseSystem(resources),
          warming: new WarmingSystem(resources),
          sweeps: new LeaseSweepSystem(resources),
          recovery: new RecoverySystem(resources),
          admissions: new AdmissionSystem(resources),
          reaper: new ReaperSystem({ resources, drainPort }),
        };
      };
      return {
        db,
        url: database.current.url,
        clock,
        config,
        drainPort,
        ...systemsOn(db),
        on: systemsOn,
      };
    },
  };
}

export interface SeededSession {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly sandboxGroupId: string;
}

/** A workspace with one agent session (its own sandbox group). */
export async function seedSession(
  db: DbClient,
  backend: "local" | "kubernetes" = "local",
): Promise<SeededSession> {
  const workspace = await db.workspace.create({
    data: { slug: `ws-${crypto.randomUUID()}`, name: "Workspace" },
  });
  const sandboxGroupId = crypto.randomUUID();
  const session = await db.session.create({
    data: { workspaceId: workspace.id, sandboxGroupId, backend },
  });
  return { workspaceId: workspace.id, sessionId: session.id, sandboxGroupId };
}

/** A second session sharing the first one's sandbox group (a child session). */
export async function seedSiblingSession(db: DbClient, of: SeededSession): Promise<string> {
  const session = await db.session.create({
    data: { workspaceId: of.workspaceId, sandboxGroupId: of.sandboxGroupId, backend: "local" },
  });
  return session.id;
}

export interface EventRow {
  readonly transition: string;
  readonly fromState: string | null;
  readonly toState: string;
  readonly epochBefore: number | null;
  readonly epochAfter: number;
  readonly reason: string | null;
  readonly at: Date;
}

/** A lease's events, oldest first. */
export async function leaseEvents(db: DbClient, leaseId: string): Promise<EventRow[]> {
  return db.leaseEvent.findMany({
    where: { leaseId },
    orderBy: { id: "asc" },
    select: {
      transition: true,
      fromState: true,
      toState: true,
      epochBefore: true,
      epochAfter: true,
      reason: true,
      at: true,
    },
  });
}

/**
 * Runs `work` `count` times at once, each inside its own interactive transaction so it is
 * pinned to one connection, and reports the backend pids used: proof the concurrency was real.
 */
export async function concurrently<T>(
  db: DbClient,
  options: { count: number },
  work: (tx: DbClientOrTx, index: number) => Promise<T>,
): Promise<{ results: T[]; backendPids: number }> {
  const pids = new Set<number>();
  const results = await Promise.all(
    Array.from({ length: options.count }, (_, index) =>
      db.$transaction(
        async (tx) => {
          const [row] = await tx.$queryRaw<[{ pid: number }]>`SELECT pg_backend_pid() AS pid`;
          pids.add(row.pid);
          return work(tx, index);
        },
        { maxWait: 30_000, timeout: 30_000 },
      ),
    ),
  );
  return { results, backendPids: pids.size };
}

/** Spawns, records and commits a box: the lease ends warm at its next epoch with `instanceId`. */
export async function warmLease(
  w: LeaseWorld,
  s: SeededSession,
  instanceId = "box-1",
): Promise<LeaseSnapshot> {
  return warmLeaseWith(w, s, { instanceId });
}

/** warmLease, recording what the box was given (by default: unknown, as before it was recorded). */
export async function warmLeaseWith(
  w: LeaseWorld,
  s: SeededSession,
  box: { readonly instanceId: string; readonly confinement?: RecordedConfinement },
): Promise<LeaseSnapshot> {
  const { instanceId } = box;
  const spawn = await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:first" });
  const fence = {
    workspaceId: s.workspaceId,
    leaseId: spawn.lease.id,
    expectedEpoch: spawn.lease.epoch,
  };
  await w.warming.recordAllocation({ ...fence, allocationId: `alloc-${instanceId}` });
  await w.warming.recordCreated({
    ...fence,
    allocationId: `alloc-${instanceId}`,
    instanceId,
    confinement: box.confinement ?? null,
  });
  const commit = await w.warming.commitWarm({ ...fence, instanceId });
  if (commit.outcome !== "committed") throw new Error(`commit lost: ${commit.reason}`);
  w.drainPort.addBox(instanceId);
  return commit.lease;
}

/** Releases the turn holder warmLease acquired with: the last holder, so the lease drains. */
export async function releaseWarmHolder(w: LeaseWorld, lease: LeaseSnapshot): Promise<void> {
  await w.leases.release({
    workspaceId: lease.workspaceId,
    leaseId: lease.id,
    kind: "turn",
    holderId: "turn-attempt:first",
  });
}

/** Captures the warm box through the in-memory drain port (which publishes it); returns the lease after. */
export async function publishCapture(w: LeaseWorld, lease: LeaseSnapshot): Promise<LeaseSnapshot> {
  const capture = await w.drainPort.capture(lease, "test");
  if (capture.kind !== "published")
    throw new Error(`no capture published: ${JSON.stringify(capture)}`);
  return capture.lease;
}

/**
 * One admitted and settled write on the warm box (as box services will do for every write), so
 * the workspace holds something a drain must capture. The holder defaults to warmLease's turn.
 */
export async function settledWrite(
  w: LeaseWorld,
  target: {
    session: SeededSession;
    lease: LeaseSnapshot;
    holder?: { kind: "turn" | "direct"; id: string };
  },
): Promise<number> {
  const { session, lease } = target;
  const admitted = await w.admissions.admit({
    ...session,
    leaseId: lease.id,
    expectedEpoch: lease.epoch,
    instanceId: lease.instanceId ?? "",
    holderKind: target.holder?.kind ?? "turn",
    holderId: target.holder?.id ?? "turn-attempt:first",
    routeTargetId: null,
    routeEpoch: 0,
    operation: "fs.write",
  });
  if (!admitted.admitted) throw new Error(`write not admitted: ${admitted.reason}`);
  await w.admissions.settle({
    workspaceId: session.workspaceId,
    admissionId: admitted.admissionId,
    outcome: "resolved",
  });
  return admitted.generation;
}

/** A warm lease with a complete archive (one admitted, settled write, then a published capture). */
export async function archivedWarmLease(
  w: LeaseWorld,
  s: SeededSession,
  instanceId: string,
): Promise<LeaseSnapshot> {
  const lease = await warmLease(w, s, instanceId);
  await settledWrite(w, { session: s, lease });
  const current = await w.leases.readByGroup(s);
  if (current === null) throw new Error("lease vanished");
  return publishCapture(w, current);
}
