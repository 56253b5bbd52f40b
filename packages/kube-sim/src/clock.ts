/** Where the simulator reads the time, so tests can move it without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** RFC 3339 in UTC with second precision, as the API server writes timestamps (§2). */
export function timestamp(clock: Clock): string {
  return clock
    .now()
    .toISOString()
    .replace(/\.\d+Z$/, "Z");
}

/**
 * A clock that moves only when told, so controllers and the kubelet run on virtual time: timers
 * waiting on it fire during `advance`, never by sleeping (§8.6).
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly listeners = new Set<(now: Date) => void>();

  constructor(start: Date | string | number = "2026-11-29T13:35:00.250Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves time forward and tells every listener (the timers) what time it is now. */
  advance(ms: number): void {
    this.current += ms;
    const now = this.now();
    for (const listener of [...this.listeners]) listener(now);
  }

  onAdvance(listener: (now: Date) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
