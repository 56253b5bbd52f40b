import { dbEnvSchema } from "@berth/db";
import { z } from "zod";

/** What the API reads: the database, identity settings, and what the status page reports. */
export const apiEnvSchema = dbEnvSchema.extend({
  BERTH_VERSION: z.string().min(1).default("unknown"),
  BERTH_GIT_REVISION: z.string().min(1).default("unknown"),
  /** The key every presented secret derives from (here: the sign-in cookie's signing key). */
  BERTH_SECRET: z.string().min(32, { error: "must be at least 32 characters" }),
  /** Where people reach the dashboard; https makes sign-in cookies Secure. */
  BERTH_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. https://berth.example.com" })
    .default("http://127.0.0.1:3000")
    .transform((url) => url.replace(/\/+$/, "")),
  /** Who may create an account: anyone (`open`) or only holders of an invitation link. */
  BERTH_SIGNUP: z.enum(["open", "invitation"]).default("invitation"),
  /** Sign-in attempts allowed per client address per minute. */
  BERTH_SIGNIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).max(1000).default(5),
});

export type ApiEnv = z.infer<typeof apiEnvSchema>;
