import { dbEnvSchema } from "@berth/db";
import { launcherPidSchema } from "@berth/launch-protocol";
import { archiveStoreEnvShape, checkSandboxEnv, sandboxEnvShape } from "@berth/sandbox";
import { z } from "zod";

/** The worker's whole configuration, validated once at start. */
export const workerEnvSchema = dbEnvSchema
  .extend(sandboxEnvShape)
  .extend(archiveStoreEnvShape)
  .extend({
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
    /** Berth's data folder: local boxes live in <dir>/boxes, archives in <dir>/archives. */
    BERTH_DATA_DIR: z.string().min(1).default(".data"),
    /**
     * The key local box tokens are derived from. Without it the worker manages no local boxes
     * (no orphan sweep; draining boxes wait).
     */
    BERTH_SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
    /**
     * How often the worker removes the pending archive blobs of captures whose process died,
     * failing their progress (also once at start). Live captures are never touched.
     */
    BERTH_CAPTURE_SWEEP_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .max(24 * 60 * 60 * 1_000)
      .default(60_000),
    /** Set by the launcher: the worker stops when that process is gone. */
    BERTH_LAUNCHER_PID: launcherPidSchema,
  })
  .superRefine(checkSandboxEnv);

export type WorkerEnv = z.infer<typeof workerEnvSchema>;

/** Every problem with the environment, one per line, or the parsed configuration. */
export function readWorkerEnv(source: NodeJS.ProcessEnv = process.env) {
  return workerEnvSchema.safeParse(source);
}
