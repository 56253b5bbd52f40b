/**
 * A deduplicating work queue, like controller-runtime's: keys added while a pass runs are handled
 * in the next pass, and `idle()` lets tests await "settled" instead of sleeping.
 */
export class WorkQueue {
  private readonly keys = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private waiters: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly handle: (key: string) => void) {}

  add(key: string): void {
    if (this.stopped) return;
    this.keys.add(key);
    this.scheduled ??= setImmediate(() => {
      this.pass();
    });
  }

  /** Whether keys are waiting; `idle()` resolves once none are. */
  get busy(): boolean {
    return this.scheduled !== undefined;
  }

  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.keys.clear();
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private pass(): void {
    this.scheduled = undefined;
    const keys = [...this.keys];
    this.keys.clear();
    for (const key of keys) {
      if (this.stopped) return;
      this.handle(key);
    }
    if (!this.busy) for (const waiter of this.waiters.splice(0)) waiter();
  }
}
