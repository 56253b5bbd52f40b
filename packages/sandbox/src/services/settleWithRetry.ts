import { setTimeout as sleep } from "node:timers/promises";

const SETTLE_TRIES = 3;

/**
 * Settles a write's admission behind its answer, tried again over a database hiccup: an
 * admission left unsettled holds back every archive after it.
 */
export async function settleWithRetry(settle: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await settle();
      return;
    } catch {
      if (attempt >= SETTLE_TRIES) return;
      await sleep(50 * attempt);
    }
  }
}
