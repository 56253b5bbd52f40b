import { isAbsolute, resolve } from "node:path";
import { BackendError } from "../../spawner/backend.ts";
import type { BoxdLogLevel } from "./boxProcess.ts";
import type { LocalIsolation } from "./bubblewrap.ts";
import { inheritedBoxEnv, readLocalBackendEnv } from "./env.ts";
import { defaultBoxdEntry } from "./boxdEntry.ts";
import { silentLogger, type LocalBackendLogger } from "./logger.ts";

export interface LocalBackendOptions {
  /** Berth's data folder; boxes live in <dataDir>/boxes/<instanceId>/. */
  readonly dataDir: string;
  /** BERTH_SECRET: each box's token is HMAC(secret, instanceId), derived when needed, never stored. */
  readonly secret: string;
  /** boxd's entry (default: the bundle apps/boxd/dist/main.mjs when fresh, else its source via tsx). */
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
   * Folders a bubblewrap box must not see, each hidden behind an empty tmpfs (default: the
   * control plane's HOME — SSH keys, cloud credentials). One that holds node or boxd stays visible.
   */
  readonly hiddenPaths?: readonly string[];
  readonly boxdLogLevel?: BoxdLogLevel;
  /** Whether this is CI, where "auto" requires bubblewrap (default: the CI variable). */
  readonly ci?: boolean;
}

export interface Settings {
  readonly dataDir: string;
  readonly secret: string;
  readonly boxdEntry: string;
  readonly isolation: LocalIsolation;
  readonly logger: LocalBackendLogger;
  readonly maxBoxes: number;
  readonly startTimeoutMs: number;
  readonly stopGraceMs: number;
  readonly bwrapPath: string;
  readonly hiddenPaths: readonly string[];
  readonly boxdLogLevel: BoxdLogLevel;
  readonly ci: boolean;
  readonly boxEnv: Readonly<Record<string, string>>;
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
  return {
    dataDir: resolve(options.dataDir),
    secret: options.secret,
    boxdEntry,
    isolation: options.isolation,
    logger: options.logger ?? silentLogger,
    maxBoxes,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    stopGraceMs: options.stopGraceMs ?? 3_000,
    bwrapPath: options.bwrapPath ?? "bwrap",
    hiddenPaths: options.hiddenPaths ?? (env.HOME === undefined ? [] : [env.HOME]),
    boxdLogLevel: options.boxdLogLevel ?? "info",
    ci: options.ci ?? env.CI,
    boxEnv: inheritedBoxEnv(env),
  };
}
