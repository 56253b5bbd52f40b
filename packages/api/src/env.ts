import { dbEnvSchema } from "@berth/db";
import { z } from "zod";

/** What the API reads: the database, plus what the status page reports about this build. */
export const apiEnvSchema = dbEnvSchema.extend({
  BERTH_VERSION: z.string().min(1).default("unknown"),
  BERTH_GIT_REVISION: z.string().min(1).default("unknown"),
});

export type ApiEnv = z.infer<typeof apiEnvSchema>;
