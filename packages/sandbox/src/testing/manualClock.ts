import type { Clock } from "../clock.ts";

/**
 * A Clock that moves only when a test moves it. It starts in the year 2000 so that any stray
 * SQL now() (which lease code must never call) shows up as a 26-year gap in assertions.
 */
export class ManualClock implements Clock {
  #now: Date;

  constructor(start: Date = new Date("2000-01-01T00:00:00.000Z")) {
    this.#now = new Date(start);
  }

  now(): Promise<Date> {
    return Promise.resolve(new Date(this.#now));
  }

  /** Moves time forward; time never goes backwards. */
  advance(ms: number): void {
    if (ms < 0) throw new RangeError(`ManualClock only moves forward (got ${ms} ms)`);
    this.#now = new Date(this.#now.getTime() + ms);
  }
}
