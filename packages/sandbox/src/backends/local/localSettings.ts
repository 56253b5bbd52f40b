import { isAbsolute, resolve } from "node:path";
import { BackendError } from "../../spawner/backend.ts";
import { LIMIT_BOUNDS, type BoxLimitSettings } from "./boxLimits.ts";
import type { BoxdLogLevel } from "./boxProcess.ts";
import type { BoxNetworkMode } from "./boxNetwork.ts";
import type { UidRange } from "./boxUsers.ts";
import type { LocalIsolation } from "./bubblewrap.ts";
import { cgroupParentSchema, inheritedBoxEnv, readLocalBackendEnv } from "./env.ts";
import { defaultBoxdEntry } from "./boxdEntry.ts";
import { silentLogger, type LocalBackendLogger } from "./logger.ts";

export interface LocalBackendOptions {
  /** Berth's data folder; boxes live in <dataDir>/boxes/<instanceId>/. */
  readonly dataDir: string;
  /** BERTH_SECRET: each box's token is HMAC(secret, instanceId), derived when needed, never stored. */
  readonly secret: string;
  /** boxd's built entry (default: the bundle apps/boxd/dist/main.mjs); sources never run a box. */
  readonly boxdEntry?: string;
  readonly isolation: LocalIsolation;
  readonly logger?: LocalBackendLogger;
  /** Most boxes running at once on this data folder (default 32); more is a `capacity` error. */
  readonly maxBoxes?: number;
  /** How long boxd may take to listen and answer healthz (default 30 s). */
  readonly startTimeoutMs?: number;
  /** How long boxd gets to exit after SIGTERM before SIGKILL (default 3 s). */
  readonly stopGraceMs?: number;
  /** The bwrap binary (default "bwrap" on PATH). */
  readonly bwrapPath?: string;
  /**
   * What a bubblewrap box's commands reach of the network (default: BERTH_BOX_NETWORK, else
   * egress): `none`, only the box's own loopback; `egress`, outbound access through slirp4netns
   * kept off the host's addresses, or `none` where that cannot be given (boxNetwork.ts).
   */
  readonly network?: BoxNetworkMode;
  readonly boxdLogLevel?: BoxdLogLevel;
  /** Whether this is CI, where "auto" requires bubblewrap (default: the CI variable). */
  readonly ci?: boolean;
  /**
   * Whether "auto" may run boxes unisolated where bubblewrap does not work (default:
   * BERTH_ALLOW_UNISOLATED=1); otherwise such a start is refused, saying how to install it.
   */
  readonly allowUnisolated?: boolean;
  /** The host uids box commands run as (default: BERTH_BOX_UIDS, 2000000-2099999). */
  readonly boxUids?: UidRange;
  /**
   * What each box may use (default: BERTH_BOX_PIDS_MAX, BERTH_BOX_MEMORY_BYTES,
   * BERTH_BOX_CPU_WEIGHT, BERTH_BOX_DISK_BYTES; else boxLimits.ts's defaults), a part given
   * here replacing only that part.
   */
  readonly limits?: Partial<BoxLimitSettings>;
  /** Berth's own cgroup below each hierarchy's root (default: BERTH_CGROUP_PARENT, else berth). */
  readonly cgroupParent?: string;
  /**
   * This installation's id (ensureInstallationId), asked once a box is created or listed: every
   * box records it, and the inventory lists only this installation's boxes (and boxes from
   * before ids were recorded, which are this installation's). Without it (tests, benches) boxes
   * record none and the inventory lists every box in the data folder.
   */
  readonly installationId?: () => Promise<string>;
}

export interface Settings {
  readonly dataDir: string;
  readonly secret: string;
  readonly boxdEntry: string;
  readonly isolation: LocalIsolation;
  readonly logger: LocalBackendLogger;
  readonly installationId: (() => Promise<string>) | undefined;
  readonly maxBoxes: number;
  readonly startTimeoutMs: number;
  readonly stopGraceMs: number;
  readonly bwrapPath: string;
  readonly network: BoxNetworkMode;
  readonly boxdLogLevel: BoxdLogLevel;
  readonly ci: boolean;
  readonly allowUnisolated: boolean;
  readonly boxUids: UidRange;
  readonly boxEnv: Readonly<Record<string, string>>;
  readonly limits: BoxLimitSettings;
  readonly cgroupParent: string;
}

export function settingsFrom(options: LocalBackendOptions): Settings {
  const invalid = (message: string) =>
    new BackendError({ code: "invalid", message: `LocalBackend: ${message}` });
  if (options.secret === "") throw invalid("secret (BERTH_SECRET) is empty");
  if (options.dataDir === "") throw invalid("dataDir is empty");
  const maxBoxes = options.maxBoxes ?? 32;
  if (!Number.isInteger(maxBoxes) || maxBoxes < 1)
    throw invalid(`maxBoxes must be a positive integer, not ${String(maxBoxes)}`);
  const boxdEntry = options.boxdEntry ?? defaultBoxdEntry();
  if (!isAbsolute(boxdEntry)) throw invalid(`boxdEntry must be an absolute path, not ${boxdEntry}`);
  const env = readLocalBackendEnv();
  const limits: BoxLimitSettings = {
    processes: options.limits?.processes ?? env.BERTH_BOX_PIDS_MAX,
    memoryBytes: options.limits?.memoryBytes ?? env.BERTH_BOX_MEMORY_BYTES,
    cpuWeight: options.limits?.cpuWeight ?? env.BERTH_BOX_CPU_WEIGHT,
    diskBytes: options.limits?.diskBytes ?? env.BERTH_BOX_DISK_BYTES,
  };
  const cgroupParent = options.cgroupParent ?? env.BERTH_CGROUP_PARENT;
  const parentProblem = cgroupParentSchema.safeParse(cgroupParent).error?.issues[0];
  if (parentProblem !== undefined)
    throw invalid(`cgroupParent ${JSON.stringify(cgroupParent)} ${parentProblem.message}`);
  for (const [name, value] of Object.entries(limits) as [keyof BoxLimitSettings, number][]) {
    const { min, max } = LIMIT_BOUNDS[name];
    if (!Number.isInteger(value) || value < min || value > max)
      throw invalid(
        `limits.${name} must be an integer from ${String(min)} to ${String(max)}, not ${String(value)}`,
      );
  }
  return {
    installationId: options.installationId,
    dataDir: resolve(options.dataDir),
    secret: options.secret,
    boxdEntry,
    isolation: options.isolation,
    logger: options.logger ?? silentLogger,
    maxBoxes,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    stopGraceMs: options.stopGraceMs ?? 3_000,
    bwrapPath: options.bwrapPath ?? "bwrap",
    network: options.network ?? env.BERTH_BOX_NETWORK,
    boxdLogLevel: options.boxdLogLevel ?? "info",
    ci: options.ci ?? env.CI,
    allowUnisolated: options.allowUnisolated ?? env.BERTH_ALLOW_UNISOLATED,
    boxUids: options.boxUids ?? env.BERTH_BOX_UIDS,
    boxEnv: inheritedBoxEnv(env),
    limits,
    cgroupParent,
  };
}
