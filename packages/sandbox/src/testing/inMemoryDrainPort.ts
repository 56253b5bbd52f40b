import { createHash } from "node:crypto";
import { RecoverySystem } from "../lease/recoverySystem.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { CaptureResult, DrainPort } from "../reaper/drainPort.ts";

/**
 * A DrainPort over boxes that exist only in memory: a test says which boxes exist and what
 * capture answers, and reads back every capture and stop, in order. A capture publishes a
 * made-up archive (revision = hash of instance and generation) through the real lease CAS.
 */
export class InMemoryDrainPort implements DrainPort {
  readonly captures: string[] = [];
  readonly stops: string[] = [];
  readonly #boxes = new Set<string>();
  readonly #recovery: RecoverySystem;
  #mode: "capture" | "unavailable" | "fail" = "capture";

  constructor(resources: LeaseResources) {
    this.#recovery = new RecoverySystem(resources);
  }

  /** Boxes that exist; capture of any other instance answers provider_missing. */
  addBox(instanceId: string): void {
    this.#boxes.add(instanceId);
  }

  hasBox(instanceId: string): boolean {
    return this.#boxes.has(instanceId);
  }

  /** What the next captures do: succeed, answer unavailable, or throw. */
  captureMode(mode: "capture" | "unavailable" | "fail"): void {
    this.#mode = mode;
  }

  async capture(lease: LeaseSnapshot, actor: string): Promise<CaptureResult> {
    const instanceId = lease.instanceId ?? "";
    this.captures.push(instanceId);
    if (this.#mode === "fail") throw new Error(`capture of ${instanceId} timed out`);
    if (this.#mode === "unavailable")
      return { kind: "unavailable", reason: "archive store offline" };
    if (!this.#boxes.has(instanceId)) return { kind: "provider_missing" };
    const generation = lease.workspaceGeneration;
    const revision = createHash("sha256")
      .update(`${instanceId}@${String(generation)}`)
      .digest("hex");
    const published = await this.#recovery.publishArchive({
      workspaceId: lease.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      instanceId,
      generation,
      revision,
      archive: {
        sizeBytes: 1024,
        fileCount: 3,
        storageKey: `archives/${revision}.tar.gz`,
        sha256: revision,
      },
      actor,
    });
    if (published.outcome === "lost") {
      return { kind: "refused", reason: published.reason, lease: published.lease };
    }
    return { kind: "published", generation, revision, lease: published.lease };
  }

  /** In-memory boxes are never kept: park terminates, as the local backend does. */
  async park(lease: LeaseSnapshot): Promise<"terminated"> {
    await this.stop(lease);
    return "terminated";
  }

  deleteSuspended(_lease: LeaseSnapshot, instanceId: string): Promise<void> {
    this.stops.push(instanceId);
    this.#boxes.delete(instanceId);
    return Promise.resolve();
  }

  stop(lease: LeaseSnapshot): Promise<void> {
    const instanceId = lease.instanceId ?? "";
    this.stops.push(instanceId);
    this.#boxes.delete(instanceId);
    return Promise.resolve();
  }
}
