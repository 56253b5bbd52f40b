/**
 * Timers on the injected clock. Under a `ManualClock` they fire when a test advances time, so
 * controller requeues and kubelet grace periods never sleep; under a real clock they are
 * `setTimeout`s.
 */
import type { Clock } from "./clock.ts";

/** A clock that can tell its listeners it moved (ManualClock does). */
interface AdvancingClock extends Clock {
  onAdvance(listener: (now: Date) => void): () => void;
}

function isAdvancing(clock: Clock): clock is AdvancingClock {
  return typeof (clock as Partial<AdvancingClock>).onAdvance === "function";
}

interface Pending {
  at: number;
  fire: () => void;
}

export class VirtualTimers {
  private readonly pending = new Set<Pending>();
  private readonly real = new Set<NodeJS.Timeout>();
  private readonly unsubscribe: (() => void) | undefined;

  constructor(private readonly clock: Clock) {
    this.unsubscribe = isAdvancing(clock)
      ? clock.onAdvance((now) => {
          this.fireDue(now.getTime());
        })
      : undefined;
  }

  /** Runs `fire` once the clock reads `at` (ms since the epoch) or later; returns a cancel. */
  at(at: number, fire: () => void): () => void {
    const entry: Pending = { at, fire };
    if (this.unsubscribe !== undefined) {
      this.pending.add(entry);
      // Already due: fire on the next turn rather than inside the caller's reconcile.
      if (at <= this.clock.now().getTime()) {
        setImmediate(() => {
          this.fireDue(this.clock.now().getTime());
        });
      }
      return () => this.pending.delete(entry);
    }
    const timer = setTimeout(
      () => {
        this.real.delete(timer);
        fire();
      },
      Math.max(0, at - this.clock.now().getTime()),
    );
    this.real.add(timer);
    return () => {
      clearTimeout(timer);
      this.real.delete(timer);
    };
  }

  private fireDue(now: number): void {
    const due = [...this.pending].filter((entry) => entry.at <= now).sort((a, b) => a.at - b.at);
    for (const entry of due) {
      this.pending.delete(entry);
      entry.fire();
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.pending.clear();
    for (const timer of this.real) clearTimeout(timer);
    this.real.clear();
  }
}
