import { createHash } from "node:crypto";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { CaptureResult, DrainPort } from "../reaper/drainPort.ts";

/**
 * A DrainPort over boxes that exist only in memory: a test says which boxes exist and what
 * capture answers, and reads back every capture and stop, in order.
 */
export class InMemoryDrainPort implements DrainPort {
  readonly captures: string[] = [];
  readonly stops: string[] = [];
  readonly #boxes = new Set<string>();
  #mode: "capture" | "unavailable" | "fail" = "capture";

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

  capture(lease: LeaseSnapshot): Promise<CaptureResult> {
    const instanceId = lease.instanceId ?? "";
    this.captures.push(instanceId);
    if (this.#mode === "fail")
      return Promise.reject(new Error(`capture of ${instanceId} timed out`));
    if (this.#mode === "unavailable")
      return Promise.resolve({ kind: "unavailable", reason: "archive store offline" });
    if (!this.#boxes.has(instanceId)) return Promise.resolve({ kind: "provider_missing" });
    const revision = createHash("sha256")
      .update(`${instanceId}@${String(lease.workspaceGeneration)}`)
      .digest("hex");
    return Promise.resolve({
      kind: "captured",
      generation: lease.workspaceGeneration,
      archive: {
        revision,
        sizeBytes: 1024,
        fileCount: 3,
        storageKey: `archives/${revision}.tar.gz`,
        sha256: revision,
      },
    });
  }

  stop(lease: LeaseSnapshot): Promise<void> {
    const instanceId = lease.instanceId ?? "";
    this.stops.push(instanceId);
    this.#boxes.delete(instanceId);
    return Promise.resolve();
  }
}
