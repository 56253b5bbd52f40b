import { execFile } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { BoxError } from "@berth/box-protocol";
import type { Logger } from "pino";

/** The bytes the workspace's files take on disk, by one measurement. */
export type MeasureWorkspace = () => Promise<number>;

/** Between two timed measurements: at least this, and at least 20 times the last one's cost. */
const MEASURE_EVERY_MS = 2_000;
const COST_FACTOR = 20;
/**
 * A write waits for a measurement of what a command just wrote only where measuring is quick:
 * a workspace measured in this long (tens of thousands of files). A bigger one's writes are
 * decided on the latest measurement plus boxd's own writes since, and its commands' writes are
 * noticed by the next timed one.
 */
const WAIT_FOR_MEASUREMENT_MS = 100;

/**
 * `du` on the workspace: the blocks its files take (hard links once, sparse files by what they
 * hold), staying on its filesystem. du runs as its own process, beside boxd's event loop, and is
 * charged to the box's own CPU and memory. A file vanishing mid-walk makes du exit 1 with the
 * rest counted: that figure is used.
 */
export function duMeasure(root: string): MeasureWorkspace {
  return () =>
    new Promise((resolve, reject) => {
      execFile("du", ["-s", "-x", "-B1", "--", root], { timeout: 60_000 }, (error, stdout) => {
        const bytes = Number(/^(\d+)\s/.exec(stdout)?.[1] ?? Number.NaN);
        if (Number.isSafeInteger(bytes)) resolve(bytes);
        else reject(error ?? new Error(`du printed no size: ${stdout.slice(0, 200)}`));
      });
    });
}

/** Bytes one write is putting into the workspace, counted as they arrive. */
export interface Reservation {
  /** Counts `bytes` more; refuses them (disk_full) where they would pass the limit. */
  add(bytes: number): void;
  /** They are written: counted as the workspace's until the next measurement. */
  commit(): void;
  /** They are not (a refused or failed write leaves nothing): no longer counted. */
  release(): void;
}

/**
 * Keeps the workspace under its disk limit where no filesystem quota does: boxd is the writer
 * of fs.write, upload and hydrate, and refuses any of them that would take the workspace past
 * the limit, while the box's own commands (which nothing stops mid-write) are caught by
 * measuring: once they have taken it past, every boxd write is refused until files are
 * removed. A refused write leaves the workspace as it was: an atomic write's temp file is
 * removed and the old file stays; a hydrate's staging folder goes. Commands are never refused:
 * they are how room is made again.
 */
export class DiskWatch {
  readonly #limit: number | undefined;
  readonly #measure: MeasureWorkspace;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;
  /** The latest measurement, and boxd's written-bytes counter when it started. */
  #measured = 0;
  #writtenAtMeasure = 0;
  /** Every byte boxd wrote (committed) since it started; what is streaming in now. */
  #written = 0;
  #inFlight = 0;
  /**
   * Changes (commands ended: changed()), and how many there had been when the latest measurement
   * started. One at first: until measured, the workspace is unknown.
   */
  #changes = 1;
  #measuredChanges = 0;
  #lastCostMs = 0;
  #lastEnd = Number.NEGATIVE_INFINITY;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: {
    /** Undefined: no limit, nothing measured. */
    readonly limitBytes: number | undefined;
    readonly measure: MeasureWorkspace;
    readonly logger?: Logger;
    readonly now?: () => number;
  }) {
    this.#limit = options.limitBytes;
    this.#measure = options.measure;
    this.#logger = options.logger;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Measures now (the first writes wait for it, briefly), then again on a timer, unref'd: it
   * never keeps boxd alive.
   */
  start(): void {
    if (this.#limit !== undefined) void this.#measureNow();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** The bytes the workspace holds by the latest measurement, with boxd's writes since. */
  usage(): number {
    return this.#measured + (this.#written - this.#writtenAtMeasure) + this.#inFlight;
  }

  /**
   * A command ended, or git wrote: what it wrote is measured soon, and a write decided next
   * waits for that measurement where it is quick.
   */
  changed(): void {
    if (this.#limit === undefined) return;
    this.#changes += 1;
    this.#schedule(Math.max(0, this.#lastEnd + this.#spacing() - this.#now()));
  }

  /**
   * Refuses (disk_full) a write of `incoming` bytes (0 when its size is not known yet) that
   * would take the workspace past its limit.
   */
  async admit(incoming: number): Promise<void> {
    const limit = this.#limit;
    if (limit === undefined) return;
    await this.#settle();
    if (this.usage() + incoming <= limit) return;
    // Over by boxd's own count, which adds what overwrote files as if nothing went: measured
    // afresh before refusing.
    if (this.#written > this.#writtenAtMeasure) await briefly(this.#measureNow());
    if (this.usage() + incoming > limit) throw this.#full(incoming);
  }

  reserve(): Reservation {
    let held = 0;
    return {
      add: (bytes) => {
        if (this.#limit !== undefined && this.usage() + bytes > this.#limit)
          throw this.#full(bytes);
        held += bytes;
        this.#inFlight += bytes;
      },
      commit: () => {
        this.#inFlight -= held;
        this.#written += held;
        held = 0;
      },
      release: () => {
        this.#inFlight -= held;
        held = 0;
      },
    };
  }

  /** `content`, counted chunk by chunk: the chunk that would pass the limit fails the stream. */
  async *metered<T extends Uint8Array>(content: AsyncIterable<T> | Iterable<T>): AsyncIterable<T> {
    const reservation = this.reserve();
    try {
      for await (const chunk of content) {
        reservation.add(chunk.byteLength);
        yield chunk;
      }
      reservation.commit();
    } finally {
      reservation.release();
    }
  }

  /** Waits (briefly) for a measurement started after the latest change, where one is quick. */
  async #settle(): Promise<void> {
    const wanted = this.#changes;
    if (this.#measuredChanges >= wanted || this.#lastCostMs > WAIT_FOR_MEASUREMENT_MS) return;
    await briefly(
      (async () => {
        // A measurement under way may have started before the change: then one more.
        while (this.#measuredChanges < wanted && !this.#stopped)
          await (this.#running ?? this.#measureNow());
      })(),
    );
  }

  #measureNow(): Promise<void> {
    this.#running ??= this.#measureOnce().finally(() => {
      this.#running = undefined;
      this.#schedule(this.#spacing());
    });
    return this.#running;
  }

  async #measureOnce(): Promise<void> {
    const changes = this.#changes;
    const written = this.#written;
    const started = this.#now();
    try {
      this.#measured = await this.#measure();
      this.#writtenAtMeasure = written;
    } catch (error) {
      // Left at the latest figure plus boxd's own writes: a failed du (a box at its process
      // limit cannot fork one) must not refuse every write.
      this.#logger?.warn({ err: error }, "the workspace could not be measured");
    } finally {
      // Looked at, measured or not: a write waits for no second try.
      this.#measuredChanges = changes;
      this.#lastCostMs = this.#now() - started;
      this.#lastEnd = this.#now();
    }
  }

  #spacing(): number {
    return COST_FACTOR * this.#lastCostMs;
  }

  /** The next measurement in `delayMs`, or sooner where one is already due sooner. */
  #schedule(delayMs: number): void {
    if (this.#stopped || this.#running !== undefined) return;
    clearTimeout(this.#timer);
    const pending = this.#changes > this.#measuredChanges;
    const wait = pending ? delayMs : Math.max(delayMs, MEASURE_EVERY_MS);
    this.#timer = setTimeout(() => void this.#measureNow(), wait);
    this.#timer.unref();
  }

  #full(incoming: number): BoxError {
    const limit = this.#limit ?? 0;
    const held = this.usage();
    const what = incoming > 0 ? `${bytesShown(incoming)} more would take it` : "it is";
    return new BoxError(
      "disk_full",
      `the workspace holds ${bytesShown(held)} and ${what} past its disk limit of ${bytesShown(limit)}: remove files, then write again`,
    );
  }
}

/** `work`, waited for at most ten times a quick measurement: a write is never held longer. */
async function briefly(work: Promise<void>): Promise<void> {
  await Promise.race([work, delay(10 * WAIT_FOR_MEASUREMENT_MS, undefined, { ref: false })]);
}

function bytesShown(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${String(bytes)} bytes` : `${value.toFixed(1)} ${units[unit] ?? ""}`;
}
