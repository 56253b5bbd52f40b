import { isNulFree, NUL_REFUSAL, textSchema } from "@berth/validators";
import { z } from "zod";
import { contentEncodingSchema, workspacePathSchema } from "./files.ts";

export const EXEC_DEFAULT_TIMEOUT_MS = 60_000;
export const EXEC_DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Variables for a process (exec, terminals). Each becomes the C string `NAME=value`: neither
 * part may hold NUL, and a name may not be empty or hold "=" (the child would read another
 * name). Names are checked here rather than by a key schema, so the refusal says why.
 */
export const environmentSchema = z.record(z.string(), textSchema).superRefine((env, ctx) => {
  for (const name of Object.keys(env)) {
    const problem =
      name === ""
        ? "a variable's name must not be empty"
        : !isNulFree(name)
          ? `a variable's name ${NUL_REFUSAL}`
          : name.includes("=")
            ? `a variable's name must not contain "="`
            : undefined;
    if (problem !== undefined) ctx.addIssue({ code: "custom", path: [name], message: problem });
  }
});

/** argv[0] names the program: never empty (spawn would refuse it as no program at all). */
const argvSchema = z
  .array(textSchema)
  .min(1, { error: "must name the program to run (argv[0])" })
  .refine((argv) => argv[0] !== "", {
    error: "argv[0] must not be empty: it names the program to run",
    path: [0],
  });

export const execRequestSchema = z.object({
  /** argv[0] is looked up on PATH unless it has a "/"; no shell ever sees the arguments. */
  argv: argvSchema,
  cwd: workspacePathSchema.default(""),
  /** Added to (and overriding) boxd's own environment, which never includes its token. */
  env: environmentSchema.default({}),
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
