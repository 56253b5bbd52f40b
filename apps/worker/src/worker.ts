import type { DbClient } from "@berth/db";
import { watchLauncher, type LauncherWatch } from "@berth/launch-protocol";
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

/** Long: the timer only keeps the process alive while it waits for a stop. */
const KEEP_ALIVE_MS = 60_000;

/** Connects, reports, runs the reaper and the capture sweep until a stop signal, then stops them. */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const { db, logger } = options;
  // Listening before the start line: whoever reads it may signal at once, and a signal with no
  // listener yet would kill the process instead of stopping it. `on`, not `once`: a Ctrl-C
  // reaches us from the terminal and again from the launcher, and a second signal with no
  // listener would kill us mid-stop. Neither signal listeners nor the launcher watch keep
  // Node's event loop alive; this timer does, until we stop.
  let timer: NodeJS.Timeout | undefined;
  let launcher: LauncherWatch | undefined;
  const stopRequested = new Promise<string>((resolve) => {
    process.on("SIGTERM", () => resolve("SIGTERM"));
    process.on("SIGINT", () => resolve("SIGINT"));
    if (options.launcherPid !== undefined)
      launcher = watchLauncher({
        pid: options.launcherPid,
        onGone: () => resolve("launcher gone"),
      });
    timer = setInterval(() => undefined, KEEP_ALIVE_MS);
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
    launcher?.stop();
  }
}
