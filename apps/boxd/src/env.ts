import { z } from "zod";

/**
 * boxd's whole configuration, validated once at start. The token is the box's own (for local
 * boxes HMAC-SHA256(BERTH_SECRET, instanceId), derived by Berth): boxd never sees the secret.
 */
export const boxdEnvSchema = z
  .object({
    /**
     * The bearer token, for a boxd run by hand or in a pod. A local box gets it on BOXD_TOKEN_FD
     * instead: an environment is readable in /proc by every process of the box that boxd's pid 1
     * shares it with.
     */
    BOXD_TOKEN: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
    /** A file descriptor to read the token from (until end of file); closed once read. */
    BOXD_TOKEN_FD: z.coerce
      .number({ error: "must be a file descriptor number" })
      .int()
      .min(3, { error: "must be 3 or more (0–2 are stdio)" })
      .optional(),
    /**
     * A file holding the token, read once at start: how a Kubernetes box gets it, from a Secret
     * volume (the Secret is owned by the Sandbox and holds HMAC-SHA256(BERTH_SECRET, allocation
     * id)), so it is in no pod spec and no environment.
     */
    BOXD_TOKEN_FILE: z.string().min(1, { error: "must be a file path" }).optional(),
    /**
     * A warm-pool pod's way, instead of a token: a file (the pool's Secret volume) holding the
     * pool key, read once at start. boxd then starts unbound and serves nothing until Berth,
     * having claimed the pod, binds it once to its instance and token (POST /v1/bind) with a
     * proof only a holder of the key can make over this pod's uid (so BOXD_POD_UID is required).
     */
    BOXD_POOL_KEY_FILE: z.string().min(1, { error: "must be a file path" }).optional(),
    /**
     * The uid of the pod boxd runs in (the pod template sets it from the downward API's
     * `metadata.uid`). Set: every authenticated request must name it in POD_UID_HEADER, else
     * `wrong_pod` — a pod's IP is reused by another pod once the box's pod is gone, and this
     * makes sure a client talks to the pod it read. The uid is no secret: it never opens the box
     * on its own, the token is still required.
     */
    BOXD_POD_UID: z.string().min(1, { error: "must not be empty" }).optional(),
    /** A Unix socket path to listen on instead of BOXD_HOST:BOXD_PORT. */
    BOXD_SOCKET: z.string().min(1).optional(),
    /**
     * With BOXD_SOCKET a bare name: the socket is made in the folder open on this descriptor
     * (through /proc/self/fd), which is closed once boxd listens. So a folder the box cannot see
     * holds the socket, and nothing the box runs later holds a way into it.
     */
    BOXD_SOCKET_DIR_FD: z.coerce
      .number({ error: "must be a file descriptor number" })
      .int()
      .min(3, { error: "must be 3 or more (0–2 are stdio)" })
      .optional(),
    /**
     * The box instance this daemon serves. Required, except with BOXD_POOL_KEY_FILE: a
     * warm-pool pod learns its instance from its bind (set anyway, a bind must name it).
     */
    BOXD_INSTANCE_ID: z.string().min(1, { error: "must not be empty" }).optional(),
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
    /**
     * The box's own user (`uid:gid`): every command runs as it (through setpriv) and owns what
     * boxd writes. Unset: commands run as boxd's user.
     */
    BOXD_COMMAND_USER: z
      .string()
      .regex(/^\d+:\d+$/, { error: "must be uid:gid, e.g. 2000001:2000001" })
      .transform((value) => {
        const [uid = "", gid = ""] = value.split(":");
        return { uid: Number(uid), gid: Number(gid) };
      })
      .refine((user) => user.uid > 0 && user.gid > 0, { error: "must not be root (0)" })
      .optional(),
    /** With BOXD_COMMAND_USER: the most processes its commands may run at once (RLIMIT_NPROC). */
    BOXD_COMMAND_PROCESSES: z.coerce.number().int().min(1).optional(),
    /**
     * What the workspace may hold on disk: past it boxd refuses writes (disk_full) until files
     * are removed (fs/diskWatch.ts). Unset: no limit of boxd's own.
     */
    BOXD_DISK_BYTES: z.coerce
      .number({ error: "must be a number of bytes" })
      .int({ error: "must be a whole number of bytes" })
      .positive({ error: "must be a positive number of bytes" })
      .optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  })
  .refine(
    (env) =>
      [env.BOXD_TOKEN, env.BOXD_TOKEN_FD, env.BOXD_TOKEN_FILE, env.BOXD_POOL_KEY_FILE].filter(
        (way) => way !== undefined,
      ).length === 1,
    {
      path: ["BOXD_TOKEN"],
      error:
        "set exactly one of BOXD_TOKEN, BOXD_TOKEN_FD, BOXD_TOKEN_FILE and BOXD_POOL_KEY_FILE: the bearer token clients must present, or the pool key a warm-pool pod is bound with",
    },
  )
  .refine((env) => env.BOXD_POOL_KEY_FILE !== undefined || env.BOXD_INSTANCE_ID !== undefined, {
    path: ["BOXD_INSTANCE_ID"],
    error:
      "is required: the box instance this daemon serves (only a warm-pool pod, with BOXD_POOL_KEY_FILE, learns it from its bind)",
    // Checked even when other variables are wrong, as when it was a plain required field: every
    // problem is listed at once. It reads only whether two variables are set.
    when: () => true,
  })
  .refine((env) => env.BOXD_POOL_KEY_FILE === undefined || env.BOXD_POD_UID !== undefined, {
    path: ["BOXD_POD_UID"],
    error: "is required with BOXD_POOL_KEY_FILE: the bind's proof is over this pod's uid",
  })
  .refine((env) => env.BOXD_SOCKET_DIR_FD === undefined || env.BOXD_SOCKET !== undefined, {
    path: ["BOXD_SOCKET_DIR_FD"],
    error: "needs BOXD_SOCKET, the socket's name in that folder",
  });

export type BoxdEnv = z.infer<typeof boxdEnvSchema>;

export function readBoxdEnv(source: NodeJS.ProcessEnv = process.env) {
  return boxdEnvSchema.safeParse(source);
}

/**
 * The environment exec and terminals start from: boxd's own, minus its BOXD_* settings, so
 * the token and the pool key (or their paths) never reach the code the box runs.
 */
export function childBaseEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && !key.startsWith("BOXD_")) env[key] = value;
  }
  return env;
}
