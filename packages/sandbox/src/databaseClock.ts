import type { DbClient } from "@berth/db";
import type { Clock } from "./clock.ts";

/** How often the offset to the database clock is measured again. */
const RESYNC_MS = 10_000;

/**
 * The production clock: the database server's time, so every replica compares TTLs against one
 * clock. Reading it in each transition would cost a second round trip per transition, so it
 * measures the offset between the database clock and this process's monotonic clock (at the
 * midpoint of the query's round trip) and re-measures every 10 s; between measurements the
 * error is the local clock's drift plus half a round trip — milliseconds against TTLs of seconds.
 */
export class DatabaseClock implements Clock {
  readonly #db: DbClient;
  #offsetMs: number | undefined;
  #syncedAt = Number.NEGATIVE_INFINITY;
  #syncing: Promise<void> | undefined;

  constructor(db: DbClient) {
    this.#db = db;
  }

  async now(): Promise<Date> {
    if (this.#offsetMs === undefined || performance.now() - this.#syncedAt > RESYNC_MS) {
      this.#syncing ??= this.#sync().finally(() => {
        this.#syncing = undefined;
      });
      await this.#syncing;
    }
    return new Date(performance.timeOrigin + performance.now() + (this.#offsetMs ?? 0));
  }

  async #sync(): Promise<void> {
    const sent = performance.now();
    const [row] = await this.#db.$queryRaw<[{ now: Date }]>`SELECT clock_timestamp() AS now`;
    const received = performance.now();
    const localMidpoint = performance.timeOrigin + (sent + received) / 2;
    this.#offsetMs = row.now.getTime() - localMidpoint;
    this.#syncedAt = received;
  }
}
