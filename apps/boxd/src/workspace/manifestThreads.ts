import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { ManifestEntry } from "@berth/box-protocol";
import { runManifestJob, type ManifestJob, type ManifestJobResult } from "./manifestJobs.ts";
import { bundledFsThread, fsThreads, stopFsThreads } from "./fsThreads.ts";
import type { JobAnswer, JobRequest } from "./manifestMessages.ts";
import { reviveThreadError } from "./threadErrors.ts";

/** Jobs a worker holds at once: one to run, one to start the moment it finishes. */
const JOBS_IN_FLIGHT = 2;

export interface ManifestThreadsOptions {
  /** The thread's module, built (default: fsThread.mjs beside the bundle; none from sources). */
  readonly workerEntry?: URL;
  /** Threads to use (default: one per core, at most 4). */
  readonly threads?: number;
}

/**
 * Runs a manifest build's jobs (manifestJobs.ts) on several threads: a workspace's files are
 * read and hashed on every core, not one — this thread and boxd's worker threads (fsThreads.ts)
 * take jobs from one queue. One build runs at a time. Without a thread module, or with one
 * thread, the jobs all run here.
 */
export class ManifestThreads {
  readonly #entry: URL | undefined;
  readonly #threads: number;
  #turn: Promise<unknown> = Promise.resolve();

  constructor(options: ManifestThreadsOptions = {}) {
    this.#entry = "workerEntry" in options ? options.workerEntry : bundledFsThread();
    this.#threads = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
  }

  /** Every entry the jobs from `first` on produce, in no particular order. */
  run(rootFd: number, first: ManifestJob): Promise<ManifestEntry[]> {
    const entry = this.#entry;
    const build = this.#turn.then(() =>
      entry === undefined || this.#threads === 1
        ? runHere(rootFd, first)
        : this.#runOnWorkers(entry, rootFd, first),
    );
    this.#turn = build.catch(() => undefined);
    return build;
  }

  /** Starts the worker threads if a build would use them and they are not running yet. */
  warm(): void {
    if (this.#entry !== undefined && this.#threads > 1) this.#startWorkers(this.#entry);
  }

  #startWorkers(entry: URL): Worker[] {
    // This thread takes jobs too: one fewer worker to start and keep in memory.
    return fsThreads(entry, this.#threads - 1);
  }

  /** Stops the worker threads (a later build starts new ones). */
  async close(): Promise<void> {
    if (this.#entry !== undefined) await stopFsThreads(this.#entry);
  }

  #runOnWorkers(entry: URL, rootFd: number, first: ManifestJob): Promise<ManifestEntry[]> {
    const workers = this.#startWorkers(entry);
    return new Promise((resolve, reject) => {
      const entries: ManifestEntry[] = [];
      const queue: ManifestJob[] = [first];
      const held = new Map<Worker, number>(workers.map((worker) => [worker, 0]));
      let nextId = 0;
      let failure: Error | undefined;
      let pumping = false;

      const take = (result: ManifestJobResult) => gather(result, entries, queue);
      const fillWorkers = () => {
        for (const worker of workers) {
          for (let count = held.get(worker) ?? 0; count < JOBS_IN_FLIGHT; count += 1) {
            const job = failure === undefined ? queue.pop() : undefined;
            if (job === undefined) return;
            held.set(worker, count + 1);
            worker.postMessage({
              kind: "job",
              id: (nextId += 1),
              rootFd,
              job,
            } satisfies JobRequest);
          }
        }
      };
      // Fills the workers, runs one job here, and comes back after the event loop has taken
      // the workers' answers (and anything else boxd serves meanwhile).
      const pump = () => {
        pumping = false;
        fillWorkers();
        const job = failure === undefined ? queue.pop() : undefined;
        if (job !== undefined) {
          try {
            take(runManifestJob(rootFd, job));
          } catch (error) {
            failure = error instanceof Error ? error : new Error(String(error));
          }
          pumping = true;
          setImmediate(pump);
          return;
        }
        // Settled only once no worker still runs a job: the caller closes rootFd after.
        if ([...held.values()].some((count) => count > 0)) return;
        cleanup();
        if (failure === undefined) resolve(entries);
        else reject(failure);
      };
      const onAnswer = (worker: Worker) => (answer: JobAnswer | { kind: string }) => {
        // The thread serves extractions too; their answers are not this build's.
        if (!isJobAnswer(answer)) return;
        held.set(worker, (held.get(worker) ?? 1) - 1);
        if (answer.ok) take(answer.result);
        else failure ??= reviveThreadError(answer.error);
        if (!pumping) pump();
      };
      // A worker that dies takes its jobs with it: the build fails and the next starts anew.
      const onCrash = (error: unknown) => {
        cleanup();
        void this.close();
        reject(new Error(`a manifest thread failed: ${String(error)}`, { cause: error }));
      };
      const listeners = workers.map((worker) => ({ worker, answer: onAnswer(worker) }));
      const cleanup = () => {
        for (const { worker, answer } of listeners) {
          worker.off("message", answer);
          worker.off("error", onCrash);
          worker.off("exit", onCrash);
        }
      };
      for (const { worker, answer } of listeners) {
        worker.on("message", answer);
        worker.once("error", onCrash);
        worker.once("exit", onCrash);
      }
      pump();
    });
  }
}

/** A job's entries and follow-up jobs, added one by one: a folder may list a million. */
function gather(result: ManifestJobResult, entries: ManifestEntry[], queue: ManifestJob[]): void {
  for (const entry of result.entries) entries.push(entry);
  for (const job of result.next) queue.push(job);
}

function runHere(rootFd: number, first: ManifestJob): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  const queue: ManifestJob[] = [first];
  for (let job = queue.pop(); job !== undefined; job = queue.pop()) {
    gather(runManifestJob(rootFd, job), entries, queue);
  }
  return entries;
}

function isJobAnswer(message: JobAnswer | { kind: string }): message is JobAnswer {
  return message.kind === "job";
}
