import { dbEnvSchema } from "@berth/db";
import { archiveStoreEnvShape, checkKubeEnv, sandboxEnvShape } from "@berth/sandbox";
import { z } from "zod";
import { trustedProxiesSchema } from "./http/clientAddress.ts";

/** What the API reads: the database, identity settings, and what the status page reports. */
const apiEnvObject = dbEnvSchema
  .extend(sandboxEnvShape)
  .extend(archiveStoreEnvShape)
  .extend({
    BERTH_VERSION: z.string().min(1).default("unknown"),
    BERTH_GIT_REVISION: z.string().min(1).default("unknown"),
    /** The key every presented secret derives from (here: the sign-in cookie's signing key). */
    BERTH_SECRET: z.string().min(32, { error: "must be at least 32 characters" }),
    /** Where people reach the dashboard; https makes sign-in cookies Secure. */
    BERTH_PUBLIC_URL: z
      .url({
        protocol: /^https?$/,
        error: "must be an http(s) URL, e.g. https://berth.example.com",
      })
      .default("http://127.0.0.1:3000")
      .transform((url) => url.replace(/\/+$/, "")),
    /**
     * Where the other web replicas reach this one (`http://10.0.0.5:3000`): the replica holding
     * a machine's agent channel is relayed its calls there (/api/internal/relay). Unset on a
     * single replica; with several, set on each, or calls reach a machine only on its holder.
     */
    BERTH_REPLICA_URL: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL this replica answers at" })
      .transform((url) => url.replace(/\/+$/, ""))
      .optional(),
    /** Who may create an account: anyone (`open`) or only holders of an invitation link. */
    BERTH_SIGNUP: z.enum(["open", "invitation"]).default("invitation"),
    /** Berth's data folder: local boxes live in <dir>/boxes. */
    BERTH_DATA_DIR: z.string().min(1).default(".data"),
    /**
     * boxd's entry for local boxes. The launcher sets it: inside the web server's bundle the
     * sandbox package cannot find the repository by its own path.
     */
    BERTH_BOXD_ENTRY: z.string().min(1).optional(),
    /**
     * The reverse proxies in front of Berth (IPs, CIDR ranges): only their X-Forwarded-For is
     * believed, so only behind them is a client's address other than its socket's.
     */
    BERTH_TRUSTED_PROXIES: trustedProxiesSchema,
    /** Sign-in attempts allowed per client address, and per account and address, per minute. */
    BERTH_SIGNIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).max(1000).default(5),
    /** Sign-in attempts allowed per account per hour, from all addresses together. */
    BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .default(400),
    /** The largest file an upload may carry, in bytes (default 2 GiB). */
    BERTH_MAX_UPLOAD_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(2 * 1024 ** 3),
  });

/**
 * One address passes at most the per-minute limit in each of the 61 minute windows an hour can
 * overlap: a per-account limit at or below that would let one address lock the account for
 * everyone, its owner included, which is what counting per (account, address) is for.
 */
function checkSignInLimits(env: z.infer<typeof apiEnvObject>, context: z.RefinementCtx): void {
  const oneAddress = 61 * env.BERTH_SIGNIN_ATTEMPTS_PER_MINUTE;
  if (env.BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR <= oneAddress)
    context.addIssue({
      code: "custom",
      path: ["BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR"],
      message: `must be more than one address can try in an hour (61 × BERTH_SIGNIN_ATTEMPTS_PER_MINUTE = ${String(oneAddress)}), or a flood from one address would lock the account out everywhere`,
    });
}

export const apiEnvSchema = apiEnvObject.superRefine(checkSignInLimits).superRefine(checkKubeEnv);

export type ApiEnv = z.infer<typeof apiEnvSchema>;
