import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { promisify } from "node:util";
import { BackendError } from "../../spawner/backend.ts";
import type { LocalBackendLogger } from "./logger.ts";

const run = promisify(execFile);

/** What the operator asks for; "auto" is bubblewrap when it works here, else none. */
export type LocalIsolation = "bubblewrap" | "none" | "auto";
/** What a box actually runs with (recorded in box.json, shown in inventory). */
export type ResolvedIsolation = "bubblewrap" | "none";

export interface SandboxPaths {
  /** Berth's data folder: every box, the embedded database. Hidden behind an empty tmpfs. */
  readonly dataDir: string;
  /** This box's workspace: bound back, the one writable place that outlives the box. */
  readonly workspace: string;
  /** More folders to hide (e.g. the operator's home), each behind an empty tmpfs. */
  readonly hidden: readonly string[];
  /** Files boxd needs to start (node, its code, tsx): kept visible even under /tmp or /run. */
  readonly needed?: readonly string[];
}

/** Mounts the box gets fresh (empty) copies of. */
const FRESH_MOUNTS = ["/tmp", "/run"] as const;

/**
 * The folders to bind back read-only over the fresh /tmp and /run: for each needed file under
 * one of them, its top folder there (a checkout in /tmp/clone needs all of /tmp/clone: its
 * node_modules and workspace packages, not just the entry file).
 */
export function foldersToKeep(needed: readonly string[]): string[] {
  const keep = new Set<string>();
  for (const path of needed) {
    for (const mount of FRESH_MOUNTS) {
      if (!isInside(path, mount) || path === mount) continue;
      const top = relative(mount, path).split(sep)[0];
      if (top !== undefined && top !== "") keep.add(`${mount}/${top}`);
    }
  }
  return [...keep].sort();
}

/**
 * bwrap's arguments for one box (the command follows). What they give:
 * - pid, ipc and uts namespaces: the box sees only its own processes; its init is the sandbox's
 *   pid 1, whose death (SIGKILL from outside) ends every process in the box;
 * - the host filesystem read-only, /proc, /dev and /tmp fresh, /run (sockets: Docker,
 *   PostgreSQL, D-Bus) hidden, the data folder hidden, then only this box's workspace bound back
 *   writable (the rest of the data folder's stand-in is read-only) — other boxes, their
 *   records and logs, and this box's own record are invisible;
 * - every capability dropped: bwrap started by root otherwise leaves them all, and
 *   CAP_SYS_ADMIN alone could unmount the tmpfs that hides the other boxes;
 * - --new-session: the box gets no controlling terminal to inject input into (TIOCSTI).
 * Not given: the network (kept: boxd must listen on the host's 127.0.0.1, so a box reaches
 * every host service on loopback), resource limits (no cgroups), and the uid (a box runs as the
 * control plane's user and reads whatever it can read, outside the hidden folders).
 * --die-with-parent is deliberately absent: boxes outlive the control plane.
 */
export function bubblewrapArgv(paths: SandboxPaths): string[] {
  const hidden = paths.hidden.flatMap((folder) => ["--tmpfs", folder, "--remount-ro", folder]);
  const kept = foldersToKeep(paths.needed ?? []).flatMap((folder) => ["--ro-bind", folder, folder]);
  return [
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--hostname",
    "berth-box",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/run",
    // Name resolution may live under /run (systemd-resolved's resolv.conf).
    "--ro-bind-try",
    "/run/systemd/resolve",
    "/run/systemd/resolve",
    ...kept,
    ...hidden,
    "--tmpfs",
    paths.dataDir,
    "--bind",
    paths.workspace,
    paths.workspace,
    // Read-only after the bind (not recursive: the workspace stays writable), so nothing is
    // written into the data folder's stand-in, not even by mistake.
    "--remount-ro",
    paths.dataDir,
    "--chdir",
    paths.workspace,
    // bwrap writes {"child-pid": N} to fd 3: N is the sandbox's init, the box's real pid.
    "--info-fd",
    "3",
    "--",
  ];
}

export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The folders to hide: a requested one that holds something boxd needs to start (node, boxd's
 * code) stays visible. The data folder must hold none of them.
 */
export function foldersToHide(options: {
  readonly dataDir: string;
  readonly requested: readonly string[];
  readonly needed: readonly string[];
}): string[] {
  const clash = options.needed.find((path) => isInside(path, options.dataDir));
  if (clash !== undefined) {
    throw new BackendError({
      code: "invalid",
      message: `dataDir ${options.dataDir} holds ${clash}, which boxd needs: a bubblewrap box cannot see inside the data folder`,
    });
  }
  return options.requested.filter(
    (folder) =>
      folder !== "/" &&
      existsSync(folder) &&
      !options.needed.some((path) => isInside(path, folder)),
  );
}

export type BubblewrapProbe =
  { readonly ok: true; readonly version: string } | { readonly ok: false; readonly reason: string };

const probes = new Map<string, Promise<BubblewrapProbe>>();

/**
 * Whether bubblewrap works here: `bwrap --version`, then a throwaway sandbox with the same
 * namespaces (bwrap may be installed but refused user namespaces, e.g. by AppArmor).
 * Cached per path for the life of the process.
 */
export function probeBubblewrap(bwrapPath: string): Promise<BubblewrapProbe> {
  let probe = probes.get(bwrapPath);
  if (probe === undefined) {
    probe = runProbe(bwrapPath);
    probes.set(bwrapPath, probe);
  }
  return probe;
}

async function runProbe(bwrapPath: string): Promise<BubblewrapProbe> {
  const options = { timeout: 10_000, encoding: "utf8" } as const;
  try {
    const { stdout } = await run(bwrapPath, ["--version"], options);
    await run(
      bwrapPath,
      [
        ...["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--new-session"],
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
 * The isolation new boxes get. "auto" falls back to none when bubblewrap does not work — except
 * under CI, where a missing bubblewrap must fail loudly instead of silently testing nothing.
 * The fallback is logged once per process.
 */
export async function resolveIsolation(options: {
  readonly requested: LocalIsolation;
  readonly ci: boolean;
  readonly bwrapPath: string;
  readonly logger: LocalBackendLogger;
}): Promise<ResolvedIsolation> {
  switch (options.requested) {
    case "none":
      return "none";
    case "bubblewrap":
    case "auto": {
      const probe = await probeBubblewrap(options.bwrapPath);
      if (probe.ok) return "bubblewrap";
      if (options.requested === "bubblewrap" || options.ci) {
        const why = options.requested === "bubblewrap" ? "isolation is bubblewrap" : "CI=true";
        throw new BackendError({
          code: "unavailable",
          message: `bubblewrap is required (${why}) but ${options.bwrapPath} does not work: ${probe.reason} (install it: apt-get install -y bubblewrap)`,
        });
      }
      if (!warnedFallback) {
        warnedFallback = true;
        options.logger.warn(
          { bwrapPath: options.bwrapPath, reason: probe.reason },
          "bubblewrap does not work here: local boxes run without isolation",
        );
      }
      return "none";
    }
  }
}
