import type { CasLoss } from "../lease/errors.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";

/** What capturing a box's /workspace (and publishing it through the lease's CAS) gave. */
export type CaptureResult =
  /** A verified archive of generation `generation` is the lease's current one. */
  | {
      readonly kind: "published";
      readonly generation: number;
      readonly revision: string;
      readonly lease: LeaseSnapshot;
    }
  /** The capture was made but its publish lost the CAS (writes in flight, the lease moved on). */
  | { readonly kind: "refused"; readonly reason: CasLoss; readonly lease: LeaseSnapshot | null }
  /** Capture is not possible now (no archive store, the box is busy, a timeout): retry later. */
  | { readonly kind: "unavailable"; readonly reason: string }
  /** The box was already gone: there is nothing left to capture. */
  | { readonly kind: "provider_missing" };

/**
 * The DrainPort: how the reaper (and the admin restore) captures a box and stops it. Capture
 * publishes through the lease's fenced CAS and never stops anything; stop is called only after
 * a capture was published (or the box was gone), is idempotent, and treats a box that is
 * already gone as stopped.
 */
export interface DrainPort {
  capture(lease: LeaseSnapshot, actor: string): Promise<CaptureResult>;
  /** Terminates the lease's box (nothing of it is kept). */
  stop(lease: LeaseSnapshot): Promise<void>;
  /**
   * Stops the lease's box after a published capture: suspended with its disk where the lease's
   * backend keeps disks across a drain (then `suspended`, and the cold lease remembers it),
   * terminated elsewhere (`terminated`). Idempotent, fenced at the lease's epoch. A port without
   * it never keeps a box: the reaper calls `stop`.
   */
  park?(lease: LeaseSnapshot): Promise<"suspended" | "terminated">;
  /**
   * Deletes a suspended box the lease forgot (the suspended-TTL sweep), with its disk. A port
   * without it never suspends, so the reaper runs no such sweep.
   */
  deleteSuspended?(lease: LeaseSnapshot, instanceId: string): Promise<void>;
}

/**
 * The drain port without an archive store: capture is unavailable, so no box with a workspace
 * is ever stopped (it could not be kept) and draining leases wait.
 */
export const captureUnavailableDrainPort: DrainPort = {
  capture: () => Promise.resolve({ kind: "unavailable", reason: "no archive store is configured" }),
  stop: () => Promise.reject(new Error("stop without a capture is never allowed")),
};
