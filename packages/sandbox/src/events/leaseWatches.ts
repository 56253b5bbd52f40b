// The in-process half of live updates: which subscriber waits on which lease. It only decides
// when a subscriber re-reads Postgres; the rows themselves always come from the database, so a
// lost wake-up costs latency, never an event.

/**
 * One subscriber's interest in one lease: a latch that a wake-up sets and `next` clears. A
 * wake-up that arrives while the subscriber is busy reading is kept, not lost: the next `next`
 * returns at once.
 */
export class LeaseWatch {
  /** The lease it follows, or null while its group has no lease yet (woken by every lease). */
  key: string | null;
  #pending = false;
  #settle: (() => void) | null = null;

  constructor(key: string | null) {
    this.key = key;
  }

  /** Marks the lease as possibly changed; resolves a waiting `next`. */
  wake(): void {
    if (this.#settle === null) this.#pending = true;
    else this.#settle();
  }

  /**
   * Resolves on a wake-up (at once if one came since the last call), when `signal` aborts, or
   * after `timeoutMs` (null: no timeout). It never rejects: the caller checks why it returned.
   */
  next(signal: AbortSignal, timeoutMs: number | null): Promise<void> {
    if (this.#pending || signal.aborted) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", settle);
        this.#settle = null;
        this.#pending = false;
        resolve();
      };
      if (timeoutMs !== null) timer = setTimeout(settle, timeoutMs);
      signal.addEventListener("abort", settle, { once: true });
      this.#settle = settle;
    });
  }
}

/** Every live watch of this process, by lease id; the wildcard set waits for a lease to exist. */
export class LeaseWatchRegistry {
  readonly #byLease = new Map<string, Set<LeaseWatch>>();
  readonly #unkeyed = new Set<LeaseWatch>();

  add(key: string | null): LeaseWatch {
    const watch = new LeaseWatch(key);
    this.#setOf(key).add(watch);
    return watch;
  }

  /** Moves a watch to the lease its group now has; a wake-up it already holds is kept. */
  retarget(watch: LeaseWatch, key: string): void {
    this.remove(watch);
    watch.key = key;
    this.#setOf(key).add(watch);
  }

  remove(watch: LeaseWatch): void {
    const set = watch.key === null ? this.#unkeyed : this.#byLease.get(watch.key);
    set?.delete(watch);
    if (watch.key !== null && set?.size === 0) this.#byLease.delete(watch.key);
  }

  /** A lease changed: wake its watches and those still waiting for their group's lease. */
  wake(leaseId: string): void {
    for (const watch of this.#byLease.get(leaseId) ?? []) watch.wake();
    for (const watch of this.#unkeyed) watch.wake();
  }

  /** Anything may have changed (a reconnect, a shutdown): every watch re-reads. */
  wakeAll(): void {
    for (const set of this.#byLease.values()) for (const watch of set) watch.wake();
    for (const watch of this.#unkeyed) watch.wake();
  }

  #setOf(key: string | null): Set<LeaseWatch> {
    if (key === null) return this.#unkeyed;
    let set = this.#byLease.get(key);
    if (set === undefined) {
      set = new Set();
      this.#byLease.set(key, set);
    }
    return set;
  }
}

/**
 * Watches by session id, woken when that session's pointer moves. A watch here may also be in
 * a LeaseWatchRegistry (a session feed wakes on its lease or its route): one latch, two keys.
 */
export class SessionWatches {
  readonly #bySession = new Map<string, Set<LeaseWatch>>();

  add(sessionId: string, watch: LeaseWatch): void {
    let set = this.#bySession.get(sessionId);
    if (set === undefined) {
      set = new Set();
      this.#bySession.set(sessionId, set);
    }
    set.add(watch);
  }

  remove(sessionId: string, watch: LeaseWatch): void {
    const set = this.#bySession.get(sessionId);
    set?.delete(watch);
    if (set?.size === 0) this.#bySession.delete(sessionId);
  }

  wake(sessionId: string): void {
    for (const watch of this.#bySession.get(sessionId) ?? []) watch.wake();
  }

  wakeAll(): void {
    for (const set of this.#bySession.values()) for (const watch of set) watch.wake();
  }
}
