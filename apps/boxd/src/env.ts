import { z } from "zod";

/**
 * boxd's whole configuration, validated once at start. The token is the box's own (for local
 * boxes HMAC-SHA256(BERTH_SECRET, instanceId), derived by Berth): boxd never sees the secret.
 */
export const boxdEnvSchema = z.object({
  BOXD_TOKEN: z
    .string({ error: "is required: the bearer token clients must present" })
    .min(32, { error: "must be at least 32 characters" }),
  BOXD_INSTANCE_ID: z
    .string({ error: "is required: the box instance this daemon serves" })
    .min(1, { error: "must not be empty" }),
  BOXD_ROOT: z
    .string({ error: "is required: the workspace folder to serve" })
    .min(1, { error: "must not be empty" }),
  BOXD_HOST: z.string().min(1).default("127.0.0.1"),
  BOXD_PORT: z.coerce
    .number({ error: "must be a port number" })
    .int({ error: "must be a port number" })
    .min(0, { error: "must be 0–65535 (0 picks a free port)" })
    .max(65_535, { error: "must be 0–65535 (0 picks a free port)" })
    .default(7070),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
});

export type BoxdEnv = z.infer<typeof boxdEnvSchema>;

export function readBoxdEnv(source: NodeJS.ProcessEnv = process.env) {
  return boxdEnvSchema.safeParse(source);
}

/**
 * The environment exec and terminals start from: boxd's own, minus its BOXD_* settings, so
 * the token never reaches the code the box runs.
 */
export function childBaseEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && !key.startsWith("BOXD_")) env[key] = value;
  }
  return env;
}
