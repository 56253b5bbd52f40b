import { z } from "zod";
import { checkKubeEnv, kubeEnvShape } from "./backends/kubeEnv.ts";
import { backendKinds } from "./spawner/backendRegistry.ts";
import type { LeaseConfig } from "./lease/config.ts";

const ms = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1_000)
    .max(24 * 60 * 60 * 1_000)
    .default(fallback);

/**
 * Which backend new sessions name when they name none (DESIGN.md "Defaults"): `local` (boxd
 * processes in the data folder) or `kubernetes` (Sandboxes on a cluster, kubeEnv.ts), plus the
 * Kubernetes backend's settings. Local is always configured; Kubernetes when it is the default or
 * BERTH_KUBE_TEMPLATE is set, so both can serve sessions at once.
 */
export const backendEnvShape = {
  BERTH_BACKEND: z
    .enum(backendKinds, { error: `must be one of ${backendKinds.join(", ")}` })
    .default("local"),
  ...kubeEnvShape,
};

/** The lease and reaper timings, from the environment (milliseconds, 1 s – 24 h). */
export const sandboxEnvShape = {
  ...backendEnvShape,
  BERTH_LEASE_TTL_MS: ms(90_000),
  BERTH_WARMING_TIMEOUT_MS: ms(600_000),
  BERTH_IDLE_GRACE_MS: ms(900_000),
  BERTH_VIEWER_TTL_MS: ms(90_000),
  BERTH_REAPER_PERIOD_MS: ms(30_000),
  /** Archive retention: revisions kept per lease (the current and a selected one always stay). */
  BERTH_ARCHIVE_KEEP: z.coerce.number().int().min(1).max(1_000).default(5),
  /** A lease with a live box is checkpointed once no write was admitted for this long. */
  BERTH_CHECKPOINT_QUIET_MS: ms(30_000),
  /**
   * ... or, at the latest, once its oldest unarchived write is this old, so a steady trickle of
   * writes (never quiet) is checkpointed too. Five minutes: a capture tars the whole workspace,
   * so under constant writes a lease costs about one capture per five minutes, and no write waits
   * much longer than that for its archive (the README states the bound).
   */
  BERTH_CHECKPOINT_MAX_MS: ms(300_000),
  BERTH_KUBE_SUSPENDED_TTL_MS: ms(86_400_000), // a drained Kubernetes box kept suspended this long (its archive covering it) is deleted
};

type SandboxEnv = z.infer<z.ZodObject<typeof sandboxEnvShape>>;

/**
 * The boot invariants: BERTH_BACKEND=kubernetes names its template (kubeEnv.ts); the reaper must sweep more often than a viewer's TTL, or viewers would
 * outlive their TTL by a whole period; and the checkpoint's deadline may not come before its
 * quiet period, which would make the quiet period meaningless (every write captured mid-burst).
 * Compose it into a process's env schema with superRefine.
 */
export function checkSandboxEnv(env: SandboxEnv, context: z.RefinementCtx): void {
  checkKubeEnv(env, context);
  if (env.BERTH_REAPER_PERIOD_MS >= env.BERTH_VIEWER_TTL_MS) {
    context.addIssue({
      code: "custom",
      path: ["BERTH_REAPER_PERIOD_MS"],
      message: `must be shorter than BERTH_VIEWER_TTL_MS (${String(env.BERTH_VIEWER_TTL_MS)} ms)`,
    });
  }
  if (env.BERTH_CHECKPOINT_MAX_MS < env.BERTH_CHECKPOINT_QUIET_MS) {
    context.addIssue({
      code: "custom",
      path: ["BERTH_CHECKPOINT_MAX_MS"],
      message: `must be at least BERTH_CHECKPOINT_QUIET_MS (${String(env.BERTH_CHECKPOINT_QUIET_MS)} ms)`,
    });
  }
}

export const sandboxEnvSchema = z.object(sandboxEnvShape).superRefine(checkSandboxEnv);

export function leaseConfigFromEnv(env: SandboxEnv): LeaseConfig {
  return {
    leaseTtlMs: env.BERTH_LEASE_TTL_MS,
    warmingTimeoutMs: env.BERTH_WARMING_TIMEOUT_MS,
    idleGraceMs: env.BERTH_IDLE_GRACE_MS,
    viewerTtlMs: env.BERTH_VIEWER_TTL_MS,
  };
}
