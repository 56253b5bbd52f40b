/** The reconnect schedule's bounds (issue 39): 0.5 s doubling to 30 s. */
export const BACKOFF_FIRST_MS = 500;
export const BACKOFF_MAX_MS = 30_000;
/** A connection that lasted this long was healthy: the next failure starts the schedule again. */
export const BACKOFF_RESET_AFTER_MS = 60_000;

/**
 * Delays between reconnects: exponential with jitter, so machines cut off together (a Berth
 * restart) do not all dial back in the same instant. Each delay is drawn from the upper half of
 * its step ([step/2, step]): never quicker than half the schedule, never beyond its cap.
 * `random` is injected so the schedule is testable without sleeping.
 */
export class Backoff {
  #attempt = 0;
  readonly #random: () => number;

  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  /** The delay before the next attempt (and the attempt counted). */
  next(): number {
    const step = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.#attempt);
    this.#attempt = Math.min(this.#attempt + 1, 16);
    return Math.round(step / 2 + (step / 2) * this.#random());
  }

  /** After a healthy connection (BACKOFF_RESET_AFTER_MS). */
  reset(): void {
    this.#attempt = 0;
  }

  /**
   * The delay before reconnecting after a connection ended: `connectedMs` is how long it was up
   * (undefined: it never connected). One that lasted BACKOFF_RESET_AFTER_MS starts the schedule
   * over, so a healthy machine cut off once dials back in half a second, not thirty.
   */
  afterEnd(connectedMs: number | undefined): number {
    if (connectedMs !== undefined && connectedMs >= BACKOFF_RESET_AFTER_MS) this.reset();
    return this.next();
  }
}
