import type { AbandonedCaptureSystem } from "@berth/sandbox";
import type { Logger } from "pino";
import { runPeriodically } from "./periodic.ts";

/**
 * Sweeps the archive store for captures whose process died mid-write (any web or worker
 * process may have been killed): at start, then every `periodMs` until stopped. A capture is
 * judged dead by its lock, never by its age, so a period shorter than a capture is harmless. A
 * sweep that throws is logged and the next one runs on time; stopping waits for the one under way.
 */
export function startCaptureSweepLoop(options: {
  readonly sweep: AbandonedCaptureSystem;
  readonly periodMs: number;
  readonly logger: Logger;
}): { stop(): Promise<void> } {
  const { sweep, periodMs, logger } = options;
  const once = async () => {
    try {
      const report = await sweep.sweepOnce();
      if (report.deferred > 0) {
        logger.warn(report, "abandoned capture sweep left blobs for the next one");
      } else if (report.removed > 0 || report.transfers.length > 0) {
        logger.info(report, "abandoned captures swept");
      } else {
        logger.debug("abandoned capture sweep: none found");
      }
    } catch (error) {
      logger.error({ err: error }, "abandoned capture sweep failed; retrying next period");
    }
  };
  return runPeriodically(once, periodMs);
}
