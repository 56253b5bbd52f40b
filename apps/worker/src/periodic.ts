/**
 * Runs `once` now, then `periodMs` after each run ends, until stopped; stopping waits for the
 * run under way. `once` handles its own errors: a run that throws would stop nothing here, but
 * its rejection would go unobserved.
 */
export function runPeriodically(
  once: () => Promise<void>,
  periodMs: number,
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = once().finally(() => {
      if (!stopped) timer = setTimeout(tick, periodMs);
    });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
