import type { ArchiveRecord } from "../lease/recoverySystem.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";

/** What capturing a draining box's /workspace gave. */
export type CaptureResult =
  /** A verified archive of the workspace as of `generation`, stored and ready to publish. */
  | { readonly kind: "captured"; readonly generation: number; readonly archive: ArchiveRecord }
  /** Capture is not possible now (no archive store yet, the box is busy, a timeout): retry later. */
  | { readonly kind: "unavailable"; readonly reason: string }
  /** The box was already gone: there is nothing left to capture. */
  | { readonly kind: "provider_missing" };

/**
 * The DrainPort: how the reaper (and the admin restore) captures a box and stops it. Capture
 * never stops anything; stop is called only after a capture was published (or the box was gone),
 * is idempotent, and treats a box that is already gone as stopped.
 */
export interface DrainPort {
  capture(lease: LeaseSnapshot): Promise<CaptureResult>;
  stop(lease: LeaseSnapshot): Promise<void>;
}

/**
 * The drain port until durable archives exist: capture is unavailable, so no box is ever
 * stopped (its workspace could not be kept) and draining leases wait.
 */
export const captureUnavailableDrainPort: DrainPort = {
  capture: () => Promise.resolve({ kind: "unavailable", reason: "no archive store is configured" }),
  stop: () => Promise.reject(new Error("stop without a capture is never allowed")),
};
