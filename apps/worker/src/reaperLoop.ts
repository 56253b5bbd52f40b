import type {
  CheckpointSystem,
  IsolationRotationSystem,
  OrphanSweepSystem,
  ReaperSystem,
  SweepReport,
} from "@berth/sandbox";
import type { Logger } from "pino";
import { runPeriodically } from "./periodic.ts";

export interface ReaperLoopOptions {
  readonly reaper: ReaperSystem;
  /**
   * Before each reaper sweep, once isolation works here, asks the leases of unisolated boxes
   * that drain to rotate, so that very sweep replaces them (when boxes are local).
   */
  readonly rotation?: IsolationRotationSystem | undefined;
  /** Terminates boxes no lease records, after each reaper sweep (when boxes are local). */
  readonly orphans?: OrphanSweepSystem | undefined;
  /**
   * Captures leases with a live box (warm or draining) whose writes went quiet or are overdue,
   * after each sweep (when an archive store is configured).
   */
  readonly checkpoints?: CheckpointSystem | undefined;
  readonly periodMs: number;
  readonly logger: Logger;
}

/**
 * Runs the rotation step, the reaper, the orphan sweep and the checkpoints every `periodMs` until
 * stopped; a sweep that throws is logged and the next one runs on time. Stopping waits for the
 * sweep in progress.
 */
export function startReaperLoop(options: ReaperLoopOptions): { stop(): Promise<void> } {
  const { reaper, rotation, orphans, checkpoints, periodMs, logger } = options;
  const sweep = async () => {
    const started = performance.now();
    try {
      const rotated = await rotation?.sweepOnce();
      if (rotated?.kind === "asked" && rotated.leases.length > 0) {
        logger.info(
          { leases: rotated.leases.map((lease) => lease.id) },
          "isolation works: unisolated boxes asked to rotate",
        );
      }
      const report = await reaper.sweepOnce();
      if (isBusy(report)) {
        logger.info(
          { ...summarize(report), ms: Math.round(performance.now() - started) },
          "reaper sweep",
        );
      }
      const swept = await orphans?.sweepOnce();
      if (
        swept !== undefined &&
        (swept.terminated.length > 0 || swept.kept.length > 0 || swept.failed.length > 0)
      ) {
        const { terminated, kept, failed } = swept;
        logger.info({ terminated, kept, failed }, "orphan sweep");
      }
      const checkpointed = await checkpoints?.sweepOnce();
      if (checkpointed !== undefined && checkpointed.length > 0) {
        logger.info({ checkpoints: checkpointed }, "checkpoint sweep");
      }
    } catch (error) {
      logger.error({ err: error }, "reaper sweep failed; retrying next period");
    }
  };
  return runPeriodically(sweep, periodMs);
}

function isBusy(report: SweepReport): boolean {
  return report.expiredWarming > 0 || report.reapedHolders > 0 || report.drains.length > 0;
}

function summarize(report: SweepReport) {
  return {
    expiredWarming: report.expiredWarming,
    reapedHolders: report.reapedHolders,
    drained: report.drains.filter((d) => d.result === "cold").length,
    deferred: report.drains
      .filter((d) => d.result === "deferred")
      .map((d) => ({ leaseId: d.leaseId, detail: d.detail })),
  };
}
