import { readdir, rename } from "node:fs/promises";
import { join } from "node:path";
import { findArchive, type LeaseSnapshot } from "@berth/sandbox";
import { boxdPeakMb, RssGrowth, withRssGrowth } from "./memory.ts";
import { settleDisk, type ArchiveWorld, type BenchSession } from "./world.ts";

/** Where a capture's time goes: connect + boxd's estimate walk, the stream, the publish. */
export interface CaptureSplit {
  readonly firstByteMs: number;
  readonly streamMs: number;
  readonly publishMs: number;
}

/** Where a restore's time goes, archived → serving. */
export interface RestoreSplit {
  /** Begin the rematerialization and read the whole blob for its sha256. */
  readonly checkMs: number;
  /** The backend's create: box folder, boxd started and answering healthz. */
  readonly createMs: number;
  /** Record the box, connect, wait for `true` to run, until the first hydrate bytes. */
  readonly readyMs: number;
  /** Stream the stored blob to boxd, which decompresses and extracts it. */
  readonly hydrateMs: number;
  /** Mark verifying, boxd re-hashes the workspace (manifest), commit warm. */
  readonly verifyMs: number;
}

export interface BerthRun {
  readonly captureMs: number;
  readonly restoreMs: number;
  readonly capture: CaptureSplit;
  readonly restore: RestoreSplit;
  readonly blobBytes: number;
  readonly benchRssCaptureMb: number;
  readonly benchRssRestoreMb: number;
  /** The bench process's RSS growth from the capture's start to the restore's end. */
  readonly benchRssCycleMb: number;
  readonly boxdCaptureMb: number;
  readonly boxdRestoreMb: number;
  /** How the backend isolated the restored box (bubblewrap, or none where it is missing). */
  readonly isolation: string;
}

/**
 * One Berth round on a fresh session: a warm box holding `tree` (its entries renamed into the
 * workspace and admitted as a settled write, untimed), then CAPTURE = archiver.capture; the box is killed and
 * marked lost; then RESTORE = spawner.establish of the new spawner (archived → serving).
 */
export async function berthCycle(world: ArchiveWorld, tree: string): Promise<BerthRun> {
  const session = await world.seedSession();
  const holderId = `direct:bench-${crypto.randomUUID()}`;
  const box = await world.spawner.establish(await acquireSpawner(world, session, holderId));
  // The box's workspace borrows the tree's own files: a copy would write the whole tree again
  // before every timed step, which the tar round never pays, and this disk slows with every
  // gigabyte written.
  let cycleRss: RssGrowth | undefined;
  const { captured, captureMs, benchRssCaptureMb } = await lendTree(
    tree,
    world.workspaceOf(box.instanceId),
    async () => {
      const warm = await admitSettledWrite(world, { session, lease: box.lease, holderId });
      await settleDisk();
      cycleRss = RssGrowth.start();
      const began = world.marks.start();
      const [result, rssMb] = await withRssGrowth(() =>
        world.archiver.capture(warm, { actor: "bench" }),
      );
      return { captured: result, captureMs: performance.now() - began, benchRssCaptureMb: rssMb };
    },
  );
  if (captured.kind !== "published") {
    throw new Error(`the capture did not publish: ${JSON.stringify(captured)}`);
  }
  const capture = captureSplit(world, captureMs);
  const boxdCaptureMb = await boxdPeakMb(box.instanceId);

  // Killed as a crash kills it; its folder stays until the run ends (see ArchiveWorld.lost).
  await world.lose(box.instanceId);
  const lost = await world.warming.markInstanceLost({
    workspaceId: session.workspaceId,
    leaseId: captured.lease.id,
    expectedEpoch: captured.lease.epoch,
    instanceId: box.instanceId,
    actor: "bench",
  });
  if (lost.outcome !== "marked") throw new Error(`markInstanceLost lost: ${lost.reason}`);
  const spawned = await acquireSpawner(world, session, `direct:bench-${crypto.randomUUID()}`);
  await settleDisk();

  const started = world.marks.start();
  const [restored, benchRssRestoreMb] = await withRssGrowth(() => world.spawner.establish(spawned));
  const restoreMs = performance.now() - started;
  const benchRssCycleMb = cycleRss?.stop() ?? Number.NaN;
  if (restored.lease.selectedRevision !== captured.revision) {
    throw new Error(
      `restored ${String(restored.lease.selectedRevision)}, not ${captured.revision}`,
    );
  }
  const restore = restoreSplit(world, restoreMs);
  const boxdRestoreMb = await boxdPeakMb(restored.instanceId);
  const inventory = await world.backend.inventory();
  const isolation = inventory.find((b) => b.instanceId === restored.instanceId)?.isolation;
  await world.lose(restored.instanceId);

  const row = await findArchive(world.db, { leaseId: spawned.id, revision: captured.revision });
  return {
    captureMs,
    restoreMs,
    capture,
    restore,
    blobBytes: row?.sizeBytes ?? Number.NaN,
    benchRssCaptureMb,
    benchRssRestoreMb,
    benchRssCycleMb,
    boxdCaptureMb,
    boxdRestoreMb,
    isolation: isolation ?? "unknown",
  };
}

function captureSplit(world: ArchiveWorld, totalMs: number): CaptureSplit {
  const { marks } = world;
  return {
    firstByteMs: marks.first("capturing"),
    streamMs: marks.last("capturing") - marks.first("capturing"),
    publishMs: totalMs - marks.last("capturing"),
  };
}

function restoreSplit(world: ArchiveWorld, totalMs: number): RestoreSplit {
  const { marks } = world;
  return {
    checkMs: marks.last("checking"),
    createMs: marks.first("created") - marks.first("create"),
    readyMs: marks.first("hydrating") - marks.first("created"),
    hydrateMs: marks.last("hydrating") - marks.first("hydrating"),
    verifyMs: totalMs - marks.last("hydrating"),
  };
}

async function acquireSpawner(
  world: ArchiveWorld,
  session: BenchSession,
  holderId: string,
): Promise<LeaseSnapshot> {
  const outcome = await world.leases.acquire({ ...session, kind: "direct", holderId });
  if (outcome.role !== "spawner") throw new Error(`expected a spawner, got ${outcome.role}`);
  return outcome.lease;
}

/**
 * The persistable write that put the tree there, admitted and settled as box services would,
 * so the workspace generation is past 0 and the capture has something to publish. Answers the
 * lease as it is now: a capture must start from the current generation.
 */
async function admitSettledWrite(
  world: ArchiveWorld,
  write: { session: BenchSession; lease: LeaseSnapshot; holderId: string },
): Promise<LeaseSnapshot> {
  const { session, lease } = write;
  const admitted = await world.admissions.admit({
    workspaceId: session.workspaceId,
    sessionId: session.sessionId,
    leaseId: lease.id,
    expectedEpoch: lease.epoch,
    instanceId: lease.instanceId ?? "",
    holderKind: "direct",
    holderId: write.holderId,
    routeTargetId: null,
    routeEpoch: 0,
    operation: "fs.write",
  });
  if (!admitted.admitted) throw new Error(`write not admitted: ${admitted.reason}`);
  await world.admissions.settle({
    workspaceId: session.workspaceId,
    admissionId: admitted.admissionId,
    outcome: "resolved",
  });
  const current = await world.leases.readByGroup(session);
  if (current === null) throw new Error("the lease vanished");
  return current;
}

/** Runs `use` with the tree's entries renamed into `workspace`, and renames them back after. */
async function lendTree<T>(tree: string, workspace: string, use: () => Promise<T>): Promise<T> {
  await moveEntries(tree, workspace);
  try {
    return await use();
  } finally {
    await moveEntries(workspace, tree);
  }
}

/** Moves every entry of `from` into `to` by rename: the same files, nothing rewritten. */
async function moveEntries(from: string, to: string): Promise<void> {
  for (const name of await readdir(from)) await rename(join(from, name), join(to, name));
}
