import type { DbClient } from "@berth/db";
import type {
  AbandonedCaptureSystem,
  CheckpointSystem,
  IsolationRotationSystem,
  OrphanSweepSystem,
  ReaperSystem,
} from "@berth/sandbox";
import type { Logger } from "pino";
import { startCaptureSweepLoop } from "./captureSweepLoop.ts";
import { startReaperLoop } from "./reaperLoop.ts";

export interface WorkerOptions {
  readonly db: DbClient;
  readonly logger: Logger;
  readonly reaper: ReaperSystem;
  readonly rotation?: IsolationRotationSystem | undefined;
  readonly orphans?: OrphanSweepSystem | undefined;
  readonly checkpoints?: CheckpointSystem | undefined;
  readonly reaperPeriodMs: number;
  /** Removes the pending blobs of captures whose process died, and fails their progress. */
  readonly abandonedCaptures: AbandonedCaptureSystem;
  readonly captureSweepPeriodMs: number;
  /** When set, the worker stops once this process is gone (it was orphaned). */
  readonly launcherPid?: number | undefined;
}

/** How often an orphaned worker notices its launcher is gone. */
const LAUNCHER_CHECK_MS = 1_000;

/** Connects, reports, runs the reaper and the capture sweep until a stop signal, then stops them. */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const { db, logger } = options;
  // Listening before the start line: whoever reads it may signal at once, and a signal with no
  // listener yet would kill the process instead of stopping it. Signal listeners do not keep
  // Node's event loop alive; the timer does, until we stop.
  let timer: NodeJS.Timeout | undefined;
  const stopRequested = new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
    timer = setInterval(() => {
      if (options.launcherPid !== undefined && !isAlive(options.launcherPid))
        resolve("launcher gone");
    }, LAUNCHER_CHECK_MS);
  });
  try {
    const [{ version }] = await db.$queryRaw<[{ version: string }]>`SELECT version() AS version`;
    logger.info(
      {
        database: version,
        reaperPeriodMs: options.reaperPeriodMs,
        captureSweepPeriodMs: options.captureSweepPeriodMs,
      },
      "worker started",
    );
    const loop = startReaperLoop({
      reaper: options.reaper,
      rotation: options.rotation,
      orphans: options.orphans,
      checkpoints: options.checkpoints,
      periodMs: options.reaperPeriodMs,
      logger,
    });
    const captureSweep = startCaptureSweepLoop({
      sweep: options.abandonedCaptures,
      periodMs: options.captureSweepPeriodMs,
      logger,
    });
    const reason = await stopRequested;
    logger.info({ reason }, "worker stopping");
    await Promise.all([loop.stop(), captureSweep.stop()]);
  } finally {
    // Also when the start fails: a live timer would keep a failed worker from exiting.
    clearInterval(timer);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
