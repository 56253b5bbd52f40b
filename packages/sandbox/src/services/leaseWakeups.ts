/**
 * What wakes a call waiting for a lease that someone else is warming or draining. The lease row
 * is always re-read from Postgres: a wake-up only says when, so a lost one costs latency, never
 * a wrong answer. `LeaseEventFeed` is the adapter (NOTIFY from the lease_events trigger, or its
 * timer where nothing can notify); without one, a waiter re-reads on a timer.
 */
export interface LeaseWakeups {
  /**
   * Starts watching one lease. Registered before the caller reads the lease, so a change
   * committed during that read still wakes the next `next`.
   */
  watchLease(leaseId: string): Promise<LeaseWakeup>;
}

export interface LeaseWakeup extends Disposable {
  /**
   * Resolves on a wake-up for the lease (at once if one came since the last call), or after
   * `maxWaitMs`. Where nothing can wake it (polling, LISTEN down), after at most `pollMs`.
   */
  next(limits: { readonly maxWaitMs: number; readonly pollMs: number }): Promise<void>;
}
