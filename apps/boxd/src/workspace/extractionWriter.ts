import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import {
  CLOSE,
  MKDIR,
  OPEN,
  SYMLINK,
  WRITE,
  type BatchCode,
  type FromExtractionThread,
  type ToExtractionThread,
} from "./extractionBatch.ts";
import { bundledFsThread, fsThreads, stopFsThreads } from "./fsThreads.ts";
import { reviveThreadError } from "./threadErrors.ts";
import { TreeOps } from "./treeOps.ts";

/**
 * Where an extraction's writes go (TreeOps' calls, awaited in order). A call may return before
 * its write is done; `finish` answers once every write is — with the sha256 of every file, in
 * the order they were closed, hashed where they were written — or throws the first failure.
 */
export interface ExtractionWriter {
  mkdir(path: string, mode: number): Promise<void>;
  symlink(path: string, target: string): Promise<void>;
  openFile(path: string, mode: number): Promise<void>;
  write(bytes: Uint8Array): Promise<void>;
  closeFile(mode: number, mtime: Date | undefined): Promise<void>;
  finish(): Promise<string[]>;
  /** Gives up: resolves once nothing writes into the staging folder any more. */
  abort(): Promise<void>;
}

/**
 * A writer for a staging folder: on boxd's worker thread (fsThreads.ts) where there is a spare
 * core and the bundle ships the thread's module, so the archive is parsed on one core while its
 * files are created, written and hashed on another; else here, call by call.
 */
export function extractionWriter(
  stagingFd: number,
  options: { readonly threadEntry?: URL } = {},
): ExtractionWriter {
  const entry = "threadEntry" in options ? options.threadEntry : bundledFsThread();
  return entry !== undefined && availableParallelism() > 1
    ? new ThreadWriter(stagingFd, entry)
    : new InlineWriter(stagingFd);
}

class InlineWriter implements ExtractionWriter {
  readonly #ops: TreeOps;
  readonly #digests: string[] = [];

  constructor(stagingFd: number) {
    this.#ops = new TreeOps(stagingFd);
  }

  mkdir(path: string, mode: number): Promise<void> {
    return this.#run(() => this.#ops.mkdir(path, mode));
  }
  symlink(path: string, target: string): Promise<void> {
    return this.#run(() => this.#ops.symlink(path, target));
  }
  openFile(path: string, mode: number): Promise<void> {
    return this.#run(() => this.#ops.openFile(path, mode));
  }
  write(bytes: Uint8Array): Promise<void> {
    return this.#run(() => this.#ops.write(bytes));
  }
  closeFile(mode: number, mtime: Date | undefined): Promise<void> {
    return this.#run(() => this.#digests.push(this.#ops.closeFile(mode, mtime)));
  }
  async finish(): Promise<string[]> {
    await this.#run(() => this.#ops.close());
    return this.#digests;
  }
  abort(): Promise<void> {
    return this.#run(() => this.#ops.close());
  }

  #run(call: () => unknown): Promise<void> {
    try {
      call();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** Bytes a batch carries at most, and batches sent but not yet applied at once. */
const BATCH_BYTES = 256 * 1024;
const BATCH_CODES = 4096;
const BATCHES_IN_FLIGHT = 4;

/**
 * Sends TreeOps calls to the extraction thread in batches (extractionBatch.ts). Memory stays
 * bounded: at most BATCHES_IN_FLIGHT buffers are out, and a call that would need another waits
 * until the thread hands one back. The thread stops at its first failure, which every later
 * call then throws, so the parsing stops too.
 */
class ThreadWriter implements ExtractionWriter {
  readonly #entry: URL;
  readonly #thread: Worker;
  readonly #free: Buffer<ArrayBuffer>[] = [];
  readonly #digests: string[] = [];
  #codes: BatchCode[] = [];
  #bytes: Buffer<ArrayBuffer>;
  #used = 0;
  #inFlight = 0;
  #failure: Error | undefined;
  #wakeUp: (() => void) | undefined;
  #ended: (() => void) | undefined;

  constructor(stagingFd: number, entry: URL) {
    const [thread] = fsThreads(entry, 1);
    if (thread === undefined) throw new Error("no extraction thread started");
    this.#entry = entry;
    this.#thread = thread;
    this.#bytes = Buffer.allocUnsafeSlow(BATCH_BYTES);
    thread.on("message", this.#onMessage);
    thread.once("error", this.#onCrash);
    thread.once("exit", this.#onCrash);
    this.#post({ kind: "begin", stagingFd });
  }

  mkdir(path: string, mode: number): Promise<void> {
    return this.#add(MKDIR, path, mode);
  }
  symlink(path: string, target: string): Promise<void> {
    return this.#add(SYMLINK, path, target);
  }
  openFile(path: string, mode: number): Promise<void> {
    return this.#add(OPEN, path, mode);
  }
  closeFile(mode: number, mtime: Date | undefined): Promise<void> {
    return this.#add(CLOSE, mode, mtime === undefined ? "" : mtime.getTime());
  }

  async write(bytes: Uint8Array): Promise<void> {
    let from = 0;
    while (from < bytes.byteLength) {
      if (this.#used === BATCH_BYTES) await this.#flush();
      this.#throwIfFailed();
      const length = Math.min(bytes.byteLength - from, BATCH_BYTES - this.#used);
      this.#bytes.set(bytes.subarray(from, from + length), this.#used);
      this.#codes.push(WRITE, this.#used, length);
      this.#used += length;
      from += length;
    }
  }

  async finish(): Promise<string[]> {
    try {
      if (this.#failure === undefined) await this.#flush();
    } finally {
      await this.#end();
    }
    this.#throwIfFailed();
    return this.#digests;
  }

  abort(): Promise<void> {
    return this.#end();
  }

  async #add(...codes: BatchCode[]): Promise<void> {
    this.#throwIfFailed();
    this.#codes.push(...codes);
    if (this.#codes.length >= BATCH_CODES) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#codes.length === 0) return;
    while (this.#inFlight >= BATCHES_IN_FLIGHT && this.#failure === undefined) {
      await new Promise<void>((resolve) => (this.#wakeUp = resolve));
    }
    this.#throwIfFailed();
    const bytes = this.#bytes.buffer;
    this.#post({ kind: "batch", codes: this.#codes, bytes }, [bytes]);
    this.#inFlight += 1;
    this.#codes = [];
    this.#bytes = this.#free.pop() ?? Buffer.allocUnsafeSlow(BATCH_BYTES);
    this.#used = 0;
  }

  /** Tells the thread this extraction is over; resolves once it has let go of every fd. */
  async #end(): Promise<void> {
    if (this.#ended === undefined && this.#failure?.name !== CRASHED) {
      const ended = new Promise<void>((resolve) => (this.#ended = resolve));
      this.#post({ kind: "end" });
      await ended;
    }
    this.#thread.off("message", this.#onMessage);
    this.#thread.off("error", this.#onCrash);
    this.#thread.off("exit", this.#onCrash);
  }

  #post(message: ToExtractionThread, transfer: ArrayBuffer[] = []): void {
    this.#thread.postMessage(message, transfer);
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  readonly #onMessage = (message: FromExtractionThread | { kind: "job" }) => {
    // The thread serves manifest jobs too; their answers are not this extraction's.
    switch (message.kind) {
      case "job":
        return;
      case "applied":
      case "failed":
        this.#inFlight -= 1;
        this.#free.push(Buffer.from(message.bytes));
        // Batches are applied in the order sent: their digests arrive in file order.
        if (message.kind === "applied")
          for (const digest of message.digests) this.#digests.push(digest);
        else this.#failure ??= reviveThreadError(message.error);
        this.#wakeUp?.();
        this.#wakeUp = undefined;
        return;
      case "ended":
        this.#ended?.();
        return;
    }
  };

  readonly #onCrash = (error: unknown) => {
    void stopFsThreads(this.#entry);
    this.#failure = Object.assign(new Error(`the extraction thread failed: ${String(error)}`), {
      name: CRASHED,
    });
    this.#wakeUp?.();
    this.#ended?.();
  };
}

const CRASHED = "ExtractionThreadCrashed";
