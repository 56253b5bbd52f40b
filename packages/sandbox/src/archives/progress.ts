import type { ArchiveProgressOperation, ArchiveProgressPhase } from "@berth/db";

/** How far an archive transfer is, for a progress bar. */
export interface ArchiveProgress {
  readonly operation: ArchiveProgressOperation;
  readonly leaseId: string;
  /**
   * One capture attempt, or one check or hydrate of a restore: a capture's pending blob is
   * tagged with it, so a sweep that finds the capture dead fails exactly its progress.
   */
  readonly transferId: string;
  /**
   * capture: capturing; restore: checking the blob, then hydrating the box. `failed` ends a
   * transfer that broke — in its process, or found dead by the worker's sweep — where it stood.
   */
  readonly phase: ArchiveProgressPhase;
  readonly bytesDone: number;
  /** Unknown until the box sends its estimate (capture) or the store its size (restore). */
  readonly bytesTotal: number | undefined;
}

export type ProgressListener = (progress: ArchiveProgress) => void;

/**
 * Passes on at most one event per `intervalMs` per phase, plus each phase's first and last, so
 * a fast transfer costs a listener a handful of calls and a slow one a steady beat.
 */
export function throttled(
  listener: ProgressListener | undefined,
  intervalMs = 250,
): { report(progress: ArchiveProgress): void; finish(progress: ArchiveProgress): void } {
  let lastAt = Number.NEGATIVE_INFINITY;
  let lastPhase: ArchiveProgress["phase"] | undefined;
  return {
    report(progress) {
      if (listener === undefined) return;
      const at = performance.now();
      if (progress.phase === lastPhase && at - lastAt < intervalMs) return;
      lastAt = at;
      lastPhase = progress.phase;
      listener(progress);
    },
    finish(progress) {
      lastAt = performance.now();
      lastPhase = progress.phase;
      listener?.(progress);
    },
  };
}
