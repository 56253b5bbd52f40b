import { z } from "zod";
import { contentEncodingSchema, workspacePathSchema } from "./files.ts";

export const EXEC_DEFAULT_TIMEOUT_MS = 60_000;
export const EXEC_DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

export const execRequestSchema = z.object({
  /** argv[0] is looked up on PATH; no shell ever sees the arguments. */
  argv: z.array(z.string()).min(1),
  cwd: workspacePathSchema.default(""),
  /** Added to (and overriding) boxd's own environment, which never includes its token. */
  env: z.record(z.string(), z.string()).default({}),
  stdin: z.string().optional(),
  timeoutMs: z.number().int().min(1).max(3_600_000).default(EXEC_DEFAULT_TIMEOUT_MS),
  /** Per stream: stdout and stderr each keep at most this many bytes. */
  maxOutputBytes: z
    .number()
    .int()
    .min(0)
    .max(16 * 1024 * 1024)
    .default(EXEC_DEFAULT_MAX_OUTPUT_BYTES),
  encoding: contentEncodingSchema.default("utf8"),
});
export type ExecRequest = z.input<typeof execRequestSchema>;

export const execResponseSchema = z.object({
  /** null when a signal ended the process. */
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type ExecResult = z.infer<typeof execResponseSchema>;
