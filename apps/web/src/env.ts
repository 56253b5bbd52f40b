import { apiEnvSchema } from "@berth/api";
import { formatEnvProblems } from "@berth/validators";
import type { z } from "zod";

/** The web process's whole configuration: the API's plus nothing of its own yet. */
export const webEnvSchema = apiEnvSchema;
export type WebEnv = z.infer<typeof webEnvSchema>;

let cached: WebEnv | undefined;

/** Validates once per process; throws one error listing every problem. */
export function readWebEnv(): WebEnv {
  if (cached !== undefined) return cached;
  const parsed = webEnvSchema.safeParse(process.env);
  if (!parsed.success) throw new Error(formatEnvProblems("berth web", parsed.error));
  cached = parsed.data;
  return cached;
}
