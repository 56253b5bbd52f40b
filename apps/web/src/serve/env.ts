import { trustedProxiesSchema } from "@berth/api/clientAddress";
import { launcherPidSchema, launchNonceSchema } from "@berth/launch-protocol";
import { z } from "zod";

// The web server entry's own configuration, apart from the app's (../env.ts): that one is the
// whole API's schema, whose entry takes seconds to load, and Next loads its own copy of it in
// this same process. This entry reads only what its HTTP edge and its lifetime need.

/** Where the web server listens, whose X-Forwarded-For it believes, and who launched it. */
export const webServerEnvSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  BERTH_TRUSTED_PROXIES: trustedProxiesSchema,
  /** It serves the production build (`next build`); React picks its build by this. */
  NODE_ENV: z.literal("production", {
    error: "must be production: this serves the dashboard's build (`next dev` serves sources)",
  }),
  /** Set by the launcher: the web server stops once that process is gone. */
  BERTH_LAUNCHER_PID: launcherPidSchema,
  /** Set by the launcher: proves to its readiness probe that this is the server it started. */
  BERTH_LAUNCH_NONCE: launchNonceSchema,
});

export function readWebServerEnv(source: NodeJS.ProcessEnv = process.env) {
  return webServerEnvSchema.safeParse(source);
}
