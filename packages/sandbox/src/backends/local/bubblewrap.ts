import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { BackendError } from "../../spawner/backend.ts";
import { boxRootArgv, type BoxRootPaths } from "./boxRoot.ts";
import type { LocalBackendLogger } from "./logger.ts";

const run = promisify(execFile);

/** What the operator asks for; "auto" is bubblewrap when it works here, else none. */
export type LocalIsolation = "bubblewrap" | "none" | "auto";
/** What a box actually runs with (recorded in box.json, shown in inventory). */
export type ResolvedIsolation = "bubblewrap" | "none";

const BOXD_CAPABILITIES = [
  "CAP_SETUID",
  "CAP_SETGID",
  "CAP_SETPCAP",
  "CAP_CHOWN",
  "CAP_FOWNER",
  "CAP_DAC_OVERRIDE",
  "CAP_KILL",
] as const;

/**
 * bwrap's arguments for one box (the command follows). What they give:
 * - pid, ipc, uts and network namespaces: the box sees only its own processes (its init is the
 *   sandbox's pid 1, whose death ends every process in the box) and only its own network — a
 *   loopback of its own, plus slirp4netns's tap device in egress mode (boxNetwork.ts);
 * - a root of its own (boxRoot.ts): the system's programs, a curated /etc, /workspace, private
 *   /tmp and home, boxd's bundle; nothing else of the host;
 * - every capability dropped but boxd's few, when its commands run as the box's own user;
 * - --new-session: the box gets no controlling terminal to inject input into (TIOCSTI).
 * Not given here: resource limits, which are the box's cgroups' (cgroups/), joined before bwrap
 * runs.
 * --die-with-parent is deliberately absent: boxes outlive the control plane.
 */
export function bubblewrapArgv(root: BoxRootPaths, options: { boxUser: boolean }): string[] {
  return [
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--hostname",
    "berth-box",
    "--new-session",
    "--cap-drop",
    "ALL",
    // boxd, root in the box, keeps only what serving a box of its own user takes: switching its
    // commands to that user and emptying their bounding set (SETUID, SETGID, SETPCAP), giving
    // it what boxd writes and reading what it wrote (CHOWN, FOWNER, DAC_OVERRIDE), and ending
    // a timed-out command's processes (KILL). Its commands keep none of them.
    ...(options.boxUser ? BOXD_CAPABILITIES.flatMap((cap) => ["--cap-add", cap]) : []),
    ...boxRootArgv(root),
    // bwrap writes {"child-pid": N} to fd 3: N is the sandbox's init, the box's real pid.
    "--info-fd",
    "3",
    "--",
  ];
}

export type BubblewrapProbe =
  { readonly ok: true; readonly version: string } | { readonly ok: false; readonly reason: string };

/** A failed probe is tried again after this long: an operator may install bubblewrap meanwhile. */
export const PROBE_RETRY_MS = 60_000;

const probes = new Map<
  string,
  { readonly result: Promise<BubblewrapProbe>; readonly at: number }
>();

/**
 * Whether bubblewrap works here: `bwrap --version`, then a throwaway sandbox with the same
 * namespaces (bwrap may be installed but refused user namespaces, e.g. by AppArmor). A success
 * is kept for the life of the process; a failure for a minute, then probed again.
 */
export async function probeBubblewrap(
  bwrapPath: string,
  now: number = Date.now(),
): Promise<BubblewrapProbe> {
  const known = probes.get(bwrapPath);
  if (known !== undefined) {
    const result = await known.result;
    if (result.ok || now - known.at < PROBE_RETRY_MS) return result;
  }
  const result = runProbe(bwrapPath);
  probes.set(bwrapPath, { result, at: now });
  return result;
}

async function runProbe(bwrapPath: string): Promise<BubblewrapProbe> {
  const options = { timeout: 10_000, encoding: "utf8" } as const;
  try {
    const { stdout } = await run(bwrapPath, ["--version"], options);
    await run(
      bwrapPath,
      [
        ...["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--new-session"],
        ...["--cap-drop", "ALL", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"],
        ...["--", "true"],
      ],
      options,
    );
    return { ok: true, version: stdout.trim() };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: unknown };
    const stderr = typeof failure.stderr === "string" ? failure.stderr.trim() : "";
    return { ok: false, reason: stderr === "" ? failure.message : stderr };
  }
}

let warnedFallback = false;

/**
 * The isolation new boxes get. "auto" is bubblewrap where it works. Where it does not, a box
 * runs unisolated only when the operator said so (BERTH_ALLOW_UNISOLATED=1, or isolation "none"):
 * never silently, and never under CI, where a missing bubblewrap must fail loudly instead of
 * silently testing nothing. The allowed fallback is logged once per process.
 */
export async function resolveIsolation(options: {
  readonly requested: LocalIsolation;
  readonly ci: boolean;
  readonly allowUnisolated: boolean;
  readonly bwrapPath: string;
  readonly logger: LocalBackendLogger;
  readonly now?: number;
}): Promise<ResolvedIsolation> {
  switch (options.requested) {
    case "none":
      return "none";
    case "bubblewrap":
    case "auto": {
      const probe = await probeBubblewrap(options.bwrapPath, options.now);
      if (probe.ok) return "bubblewrap";
      const allowed = options.requested === "auto" && options.allowUnisolated && !options.ci;
      if (!allowed) {
        const why =
          options.requested === "bubblewrap"
            ? "isolation is bubblewrap"
            : options.ci
              ? "CI=true"
              : "boxes never run unisolated unless BERTH_ALLOW_UNISOLATED=1";
        throw new BackendError({
          code: "unavailable",
          message: `bubblewrap is required (${why}) but ${options.bwrapPath} does not work: ${probe.reason}. Install it (apt-get install -y bubblewrap)${options.requested === "auto" && !options.ci ? ", or set BERTH_ALLOW_UNISOLATED=1 to run boxes without isolation" : ""}; Berth tries it again within a minute.`,
        });
      }
      if (!warnedFallback) {
        warnedFallback = true;
        options.logger.warn(
          { bwrapPath: options.bwrapPath, reason: probe.reason },
          "bubblewrap does not work here and BERTH_ALLOW_UNISOLATED=1: local boxes run without isolation",
        );
      }
      return "none";
    }
  }
}
