import type { BoxClient } from "@berth/box-protocol";
import { expect } from "vitest";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { Backend } from "../spawner/backend.ts";
import type { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import type { LeaseWorld, SeededSession } from "./leaseFixture.ts";
import { killBox } from "./spawnerFixture.ts";

// Real boxes for archive scenarios: established through a spawner (so a lease with an archive
// is restored from its store), written to under admitted writes, and lost as a crash loses them.
// Whatever store the spawner and the archiver were built over (a folder, a bucket).

/** A warm box of the lease, with its client and the direct holder that acquired it. */
export interface WarmBox {
  readonly lease: LeaseSnapshot;
  readonly instanceId: string;
  readonly client: BoxClient;
  readonly holderId: string;
}

export async function currentLease(w: LeaseWorld, s: SeededSession): Promise<LeaseSnapshot> {
  const lease = await w.leases.readByGroup(s);
  if (lease === null) throw new Error("no lease");
  return lease;
}

/** Acquires the session's lease as the one caller that must spawn its box. */
export async function acquireSpawner(w: LeaseWorld, s: SeededSession) {
  const holderId = `direct:${crypto.randomUUID()}`;
  const outcome = await w.leases.acquire({ ...s, kind: "direct", holderId });
  if (outcome.role !== "spawner") throw new Error(`expected spawner, got ${outcome.role}`);
  return { lease: outcome.lease, holderId };
}

/** Acquires as spawner and establishes the box through `spawner` (restoring any archive). */
export async function establishBox(
  w: LeaseWorld,
  s: SeededSession,
  over: { readonly spawner: SpawnerSystem; readonly backend: Backend },
): Promise<WarmBox> {
  const { lease, holderId } = await acquireSpawner(w, s);
  const box = await over.spawner.establish(lease);
  return {
    lease: box.lease,
    instanceId: box.instanceId,
    client: await over.backend.connect(box.instanceId),
    holderId,
  };
}

/** Admits a write under the box's holder, as box services do before it reaches the box. */
export async function admitWrite(
  w: LeaseWorld,
  target: { session: SeededSession; box: WarmBox },
  operation: string,
): Promise<{ admissionId: string }> {
  const { session, box } = target;
  const lease = await currentLease(w, session);
  const admitted = await w.admissions.admit({
    ...session,
    leaseId: lease.id,
    expectedEpoch: lease.epoch,
    instanceId: box.instanceId,
    holderKind: "direct",
    holderId: box.holderId,
    routeTargetId: null,
    routeEpoch: 0,
    operation,
  });
  if (!admitted.admitted) throw new Error(`write not admitted: ${admitted.reason}`);
  return admitted;
}

/** An admitted, settled write through the box's shell, as box services will run one. */
export async function writeInBox(
  w: LeaseWorld,
  target: { session: SeededSession; box: WarmBox },
  script: string,
): Promise<void> {
  const { session, box } = target;
  const admitted = await admitWrite(w, target, "exec");
  const result = await box.client.exec({ argv: ["sh", "-c", `set -e\n${script}`] });
  await w.admissions.settle({
    workspaceId: session.workspaceId,
    admissionId: admitted.admissionId,
    outcome: result.exitCode === 0 ? "resolved" : "rejected",
  });
  if (result.exitCode !== 0) throw new Error(`script failed: ${result.stderr}`);
}

/** The box dies (SIGKILL, as a crash), and an observer marks it lost: cold, restore pending. */
export async function loseBox(w: LeaseWorld, s: SeededSession, box: WarmBox): Promise<void> {
  await killBox(box.instanceId);
  await markLost(w, s, box.instanceId);
}

/** An observer found the session's box gone and marks it lost: cold, restore pending. */
export async function markLost(w: LeaseWorld, s: SeededSession, instanceId: string): Promise<void> {
  const lease = await currentLease(w, s);
  const marked = await w.warming.markInstanceLost({
    workspaceId: s.workspaceId,
    leaseId: lease.id,
    expectedEpoch: lease.epoch,
    instanceId,
    actor: "test",
  });
  expect(marked).toMatchObject({ outcome: "marked", lease: { restoreStatus: "pending" } });
}

/** A file of the box's workspace, whole. */
export async function download(client: BoxClient, path: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of (await client.download({ path })).body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
