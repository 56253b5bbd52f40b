import { z } from "zod";
import { parseUidRange } from "./boxUsers.ts";
import { DEFAULT_BOX_LIMITS, LIMIT_BOUNDS, type BoxLimitSettings } from "./boxLimits.ts";

function limit(name: keyof BoxLimitSettings) {
  const { min, max } = LIMIT_BOUNDS[name];
  return z.coerce.number().int().min(min).max(max).default(DEFAULT_BOX_LIMITS[name]);
}

/** A cgroup below each hierarchy's root, as a relative path. */
export const cgroupParentSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/, {
    error: "must be a relative cgroup path, such as berth or system.slice/berth",
  })
  .refine((path) => !path.split("/").some((part) => part === "." || part === ".."), {
    error: "must not hold . or ..",
  });

/**
 * What the local backend reads from its environment: whether this is CI (where bubblewrap is
 * required), what boxes get (network, limits), and the few variables boxd and the commands it
 * runs inherit. Nothing else of the control plane's environment reaches a box: it holds
 * BERTH_SECRET and DATABASE_URL.
 */
const localBackendEnvSchema = z.object({
  CI: z
    .string()
    .optional()
    .transform((value) => value === "true" || value === "1"),
  /** `1` lets boxes run unisolated where bubblewrap does not work; never a silent fallback. */
  BERTH_ALLOW_UNISOLATED: z
    .string()
    .optional()
    .transform((value) => value === "1" || value === "true"),
  /** What a bubblewrap box's commands reach of the network: `none` or `egress` (boxNetwork.ts). */
  BERTH_BOX_NETWORK: z.enum(["none", "egress"]).default("egress"),
  /** The host uids box commands run as, `first-last` (each box its own; used only as root). */
  BERTH_BOX_UIDS: z
    .string()
    .default("2000000-2099999")
    .transform((text, context) => {
      const range = parseUidRange(text);
      if (range === undefined) {
        context.addIssue({
          code: "custom",
          message: "must be first-last, two uids above 0, e.g. 2000000-2099999",
        });
        return z.NEVER;
      }
      return range;
    }),
  /** Each box's limits (boxLimits.ts has the defaults); processes, memory and CPU by cgroup. */
  BERTH_BOX_PIDS_MAX: limit("processes"),
  BERTH_BOX_MEMORY_BYTES: limit("memoryBytes"),
  BERTH_BOX_CPU_WEIGHT: limit("cpuWeight"),
  BERTH_BOX_DISK_BYTES: limit("diskBytes"),
  /** Berth's own cgroup below each hierarchy's root: boxes' are `<it>/<data folder hash>/<id>`. */
  BERTH_CGROUP_PARENT: cgroupParentSchema.default("berth"),
  PATH: z.string().min(1).default("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
  HOME: z.string().min(1).optional(),
  LANG: z.string().optional(),
  LC_ALL: z.string().optional(),
  TZ: z.string().optional(),
});

export type LocalBackendEnv = z.infer<typeof localBackendEnvSchema>;

export function readLocalBackendEnv(source: NodeJS.ProcessEnv = process.env): LocalBackendEnv {
  return localBackendEnvSchema.parse(source);
}

/** The variables passed through to boxd (and from it to exec and terminals). */
export function inheritedBoxEnv(env: LocalBackendEnv): Record<string, string> {
  const inherited: Record<string, string> = { PATH: env.PATH };
  for (const key of ["HOME", "LANG", "LC_ALL", "TZ"] as const) {
    const value = env[key];
    if (value !== undefined) inherited[key] = value;
  }
  return inherited;
}
