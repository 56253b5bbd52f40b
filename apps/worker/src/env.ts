import { dbEnvSchema } from "@berth/db";
import { checkSandboxEnv, sandboxEnvShape } from "@berth/sandbox";
import { z } from "zod";

/** The worker's whole configuration, validated once at start. */
export const workerEnvSchema = dbEnvSchema
  .extend(sandboxEnvShape)
  .extend({
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
    /** Set by the launcher: the worker stops when that process is gone. */
    BERTH_LAUNCHER_PID: z.coerce.number().int().positive().optional(),
  })
  .superRefine(checkSandboxEnv);

export type WorkerEnv = z.infer<typeof workerEnvSchema>;

/** Every problem with the environment, one per line, or the parsed configuration. */
export function readWorkerEnv(source: NodeJS.ProcessEnv = process.env) {
  return workerEnvSchema.safeParse(source);
}
