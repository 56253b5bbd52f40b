import { setTimeout as sleep } from "node:timers/promises";
import type { LeaseSystem } from "../lease/leaseSystem.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { LeaseWakeups } from "./leaseWakeups.ts";

/**
 * Box calls waiting for a lease someone else is warming or draining. Every call of this process
 * waiting on the same lease state shares one watch: a herd of callers on a cold session costs one
 * re-read per wake-up, not one each, which would otherwise crowd the spawner's own statements out
 * of the connection pool while it warms the box.
 */
export class LeaseChangeWaits {
  readonly #leases: LeaseSystem;
  readonly #wakeups: LeaseWakeups | undefined;
  readonly #pollMs: number;
  readonly #waits = new Map<string, Promise<void>>();

  constructor(options: { leases: LeaseSystem; wakeups: LeaseWakeups | undefined; pollMs: number }) {
    this.#leases = options.leases;
    this.#wakeups = options.wakeups;
    this.#pollMs = options.pollMs;
  }

  /** Resolves once the lease left the state `seen`, or at the deadline (a dead spawner moves nothing). */
  until(seen: LeaseSnapshot, deadline: number): Promise<void> {
    const key = `${seen.id}:${String(seen.epoch)}:${seen.liveness}:${String(seen.expiresAt.getTime())}`;
    const shared = this.#waits.get(key);
    if (shared !== undefined) return shared;
    const wait = this.#watchUntilMoved(seen, deadline).finally(() => {
      this.#waits.delete(key);
    });
    this.#waits.set(key, wait);
    return wait;
  }

  async #watchUntilMoved(seen: LeaseSnapshot, deadline: number): Promise<void> {
    // Registered before the first wait: a commit that lands meanwhile still wakes it.
    using wakeup = await this.#wakeups?.watchLease(seen.id);
    for (;;) {
      const maxWaitMs = Math.max(0, deadline - Date.now());
      if (wakeup === undefined) await sleep(Math.min(this.#pollMs, maxWaitMs));
      else await wakeup.next({ maxWaitMs, pollMs: this.#pollMs });
      const now = await this.#leases.readByGroup({
        workspaceId: seen.workspaceId,
        sandboxGroupId: seen.sandboxGroupId,
      });
      // A new deadline counts too: a drain claim given back (a restore that could not go on)
      // leaves the lease draining within a fresh grace, which the next acquire re-arms.
      if (
        now === null ||
        now.epoch !== seen.epoch ||
        now.liveness !== seen.liveness ||
        now.expiresAt.getTime() !== seen.expiresAt.getTime()
      )
        return;
      if (Date.now() >= deadline) return;
    }
  }
}
