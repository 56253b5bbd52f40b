import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";

/**
 * boxd's worker threads (fsThread.ts): manifest builds spread their jobs over them, and a
 * hydrate writes its files on the first. They start on first use and stay, unref'd, so they
 * never keep boxd alive; one module serves both kinds of work, so a box pays one thread's
 * memory for both.
 */
/** The thread module's code, inlined by scripts/bundle.mjs into dist/boxd.mjs only. */
declare const __BOXD_FS_THREAD__: string | undefined;

const running = new Map<string, Worker[]>();

/** `count` threads running `entry`, started as needed. */
export function fsThreads(entry: URL, count: number): Worker[] {
  const workers = running.get(entry.href) ?? [];
  running.set(entry.href, workers);
  while (workers.length < count) {
    const worker = new Worker(entry);
    worker.unref();
    workers.push(worker);
  }
  return workers.slice(0, count);
}

/** Stops the threads running `entry` (one failed, or the caller is done): the next use starts new ones. */
export async function stopFsThreads(entry: URL): Promise<void> {
  const workers = running.get(entry.href) ?? [];
  running.delete(entry.href);
  await Promise.all(workers.map((worker) => worker.terminate()));
}

/**
 * The thread module, bundled beside boxd's own script (scripts/bundle.mjs). From sources there
 * is none: Node 20 does not apply tsx's loader inside a worker thread, so the work runs inline;
 * so it does where an image shipped boxd without it.
 */
export function bundledFsThread(): URL | undefined {
  // dist/boxd.mjs, the single-file agent, carries the thread's module inside itself.
  if (typeof __BOXD_FS_THREAD__ === "string") {
    return new URL(
      `data:text/javascript;base64,${Buffer.from(__BOXD_FS_THREAD__).toString("base64")}`,
    );
  }
  if (import.meta.url.endsWith(".ts")) return undefined;
  const entry = new URL("./fsThread.mjs", import.meta.url);
  return existsSync(entry) ? entry : undefined;
}
