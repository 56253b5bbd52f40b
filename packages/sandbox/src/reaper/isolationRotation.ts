import { BackendError } from "../spawner/backend.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { LeaseSweepSystem } from "../lease/sweepSystem.ts";

/** What one rotation sweep did, and why it did nothing. */
export type IsolationRotationReport =
  /** Isolation works here: these draining leases of unisolated boxes were asked to rotate. */
  | { readonly kind: "asked"; readonly leases: readonly LeaseSnapshot[] }
  /** A box started now would run unisolated too (the operator allowed it): nothing to gain. */
  | { readonly kind: "unisolated_here" }
  /** A box would not start here at all (bubblewrap does not work and none is not allowed). */
  | { readonly kind: "isolation_unavailable"; readonly reason: string };

export interface IsolationRotationOptions {
  readonly resources: LeaseResources;
  /**
   * What a local box started by this process now would run with (LocalBackend's
   * resolveIsolation); a BackendError when a box would not start. Its failed probe is retried
   * after a minute, so the sweep after bubblewrap is installed sees bubblewrap.
   */
  readonly isolationNow: () => Promise<"bubblewrap" | "none">;
}

/**
 * Once isolation works, replaces the boxes that run without it (issue 32: a box started while
 * bubblewrap was missing kept running unisolated after it was installed). Each sweep, where a
 * new local box would get bubblewrap, every draining local lease whose box is recorded as
 * unisolated (or unknown) is asked to rotate, so the reaper's drain replaces the box at once and
 * the next arrival gets an isolated one; a warm lease is asked at its next drain, so no one using
 * the box is cut off. Run it before the reaper's sweep: that sweep then drains what it asked.
 */
export class IsolationRotationSystem {
  readonly #sweeps: LeaseSweepSystem;
  readonly #isolationNow: () => Promise<"bubblewrap" | "none">;

  constructor(options: IsolationRotationOptions) {
    this.#sweeps = new LeaseSweepSystem(options.resources);
    this.#isolationNow = options.isolationNow;
  }

  async sweepOnce(): Promise<IsolationRotationReport> {
    let isolation: "bubblewrap" | "none";
    try {
      isolation = await this.#isolationNow();
    } catch (error) {
      if (error instanceof BackendError)
        return { kind: "isolation_unavailable", reason: error.message };
      throw error;
    }
    switch (isolation) {
      case "none":
        return { kind: "unisolated_here" };
      case "bubblewrap":
        return { kind: "asked", leases: await this.#sweeps.requestUnisolatedRotations() };
    }
  }
}
