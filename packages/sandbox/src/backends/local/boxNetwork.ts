import { execFile, spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { BackendError } from "../../spawner/backend.ts";
import type { LocalBackendLogger } from "./logger.ts";

const run = promisify(execFile);

/** What the operator asks for (BERTH_BOX_NETWORK). */
export type BoxNetworkMode = "none" | "egress";
/**
 * What a box gets, recorded with it: a loopback of its own only (`none`), that plus outbound
 * access through slirp4netns (`egress`), or the host's own network (`host`: an unisolated box).
 */
export type ResolvedNetwork = BoxNetworkMode | "host";

/**
 * The group slirp4netns runs under, and the nftables table that rejects that group's packets to
 * every address of the host itself and to link-local ones (cloud metadata services). Both are
 * made by the start and test commands (scripts/lib/egressFirewall.sh), as root.
 */
export const EGRESS_GROUP = "berth-egress";
/** The variable that marks a box's slirp4netns with its instance id. */
export const NETWORK_HELPER_VARIABLE = "BERTH_NETWORK_OF";
export const EGRESS_TABLE = "berth_egress";

export type EgressProbe =
  { readonly ok: true; readonly gid: number } | { readonly ok: false; readonly reason: string };

let probeOnce: Promise<EgressProbe> | undefined;

/**
 * Whether egress can be given here: root (slirp4netns must enter the box's network namespace),
 * slirp4netns, the egress group, and the firewall table naming that group. Probed once per
 * process: what it checks changes only when an operator installs something, and a restart
 * picks that up.
 */
export function probeEgress(): Promise<EgressProbe> {
  probeOnce ??= runProbe();
  return probeOnce;
}

async function runProbe(): Promise<EgressProbe> {
  if (process.getuid?.() !== 0) return { ok: false, reason: "Berth does not run as root" };
  try {
    await run("slirp4netns", ["--version"], { timeout: 5_000 });
  } catch {
    return { ok: false, reason: "slirp4netns is not installed (apt-get install slirp4netns)" };
  }
  const gid = await groupId(EGRESS_GROUP);
  if (gid === undefined)
    return {
      ok: false,
      reason: `no ${EGRESS_GROUP} group (scripts/lib/egressFirewall.sh makes it)`,
    };
  let table: string;
  try {
    ({ stdout: table } = await run("nft", ["list", "table", "inet", EGRESS_TABLE], {
      timeout: 5_000,
    }));
  } catch {
    return {
      ok: false,
      reason: `no nftables table inet ${EGRESS_TABLE} (scripts/lib/egressFirewall.sh installs it)`,
    };
  }
  // The rule must name this very group, or slirp4netns's packets would pass unchecked.
  if (!table.includes(`meta skgid ${String(gid)} fib daddr type local reject`))
    return { ok: false, reason: `table inet ${EGRESS_TABLE} does not reject group ${String(gid)}` };
  return { ok: true, gid };
}

async function groupId(name: string): Promise<number | undefined> {
  const groups = await readFile("/etc/group", "utf8").catch(() => "");
  for (const line of groups.split("\n")) {
    const [group, , gid] = line.split(":");
    if (group === name && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return undefined;
}

let warnedFallback = false;

/**
 * The network a new box gets. `egress` falls back to `none` where it cannot be given safely,
 * logged once per process; an unisolated box has the host's network whatever was asked.
 */
export async function resolveNetwork(options: {
  readonly requested: BoxNetworkMode;
  readonly isolated: boolean;
  readonly logger: LocalBackendLogger;
  /** What decides whether egress can be given (default: this machine's probeEgress). */
  readonly probe?: () => Promise<EgressProbe>;
}): Promise<{ readonly network: ResolvedNetwork; readonly gid?: number }> {
  if (!options.isolated) return { network: "host" };
  switch (options.requested) {
    case "none":
      return { network: "none" };
    case "egress": {
      const probe = await (options.probe ?? probeEgress)();
      if (probe.ok) return { network: "egress", gid: probe.gid };
      if (!warnedFallback) {
        warnedFallback = true;
        options.logger.warn(
          { reason: probe.reason },
          "BERTH_BOX_NETWORK=egress cannot be given here: boxes get no network (none)",
        );
      }
      return { network: "none" };
    }
  }
}

/**
 * Gives a started box outbound access: slirp4netns, under the egress group, makes a tap device
 * in the box's network namespace and relays its connections from the host's side, where the
 * firewall keeps them off the host's own addresses. `--disable-host-loopback` refuses 10.0.2.2
 * (the host's loopback in slirp's default layout). It lives as long as `lifeline`, a descriptor
 * the box holds: when the box ends, slirp4netns sees it close and exits.
 */
export async function startEgress(options: {
  readonly boxPid: number;
  readonly instanceId: string;
  readonly gid: number;
  readonly lifeline: Readable;
  readonly timeoutMs: number;
}): Promise<ChildProcess> {
  // A stopped box's helper is found (and ended) by this variable (boxProcess's killStrays).
  // Exactly this env: Next.js's ambient types demand NODE_ENV in every env, nothing reads it.
  const env = { [NETWORK_HELPER_VARIABLE]: options.instanceId } as unknown as NodeJS.ProcessEnv;
  const launch: SpawnOptions = {
    env,
    gid: options.gid,
    uid: 0,
    detached: true,
    stdio: ["ignore", "ignore", "ignore", options.lifeline, "pipe"],
  };
  const child = spawn(
    "slirp4netns",
    [
      "--configure",
      "--mtu=65520",
      "--disable-host-loopback",
      "--exit-fd=3",
      "--ready-fd=4",
      String(options.boxPid),
      "tap0",
    ],
    launch,
  );
  child.unref();
  const ready = (child.stdio as readonly (Readable | null | undefined)[])[4];
  if (ready === null || ready === undefined) throw new Error("slirp4netns got no ready pipe");
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    await Promise.race([
      once(ready, "data", { signal: deadline }),
      once(child, "exit", { signal: deadline }).then(([code]) => {
        throw new Error(`slirp4netns exited (${String(code)}) before it was ready`);
      }),
    ]);
  } catch (error) {
    child.kill("SIGKILL");
    throw new BackendError({
      code: "unavailable",
      message: `box ${options.instanceId}: its egress network did not start: ${String(error)}`,
      instanceId: options.instanceId,
      cause: error,
    });
  } finally {
    ready.destroy();
  }
  return child;
}
