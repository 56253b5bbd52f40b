import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { BackendError } from "../../spawner/backend.ts";
import type { BoxLayout } from "./boxFolder.ts";
import type { LocalBackendLogger } from "./logger.ts";

const run = promisify(execFile);

/** The host user a box's commands run as (its group has the same number). */
export interface BoxUser {
  readonly uid: number;
  readonly gid: number;
}

/** BERTH_BOX_UIDS: the host uids boxes are given, `first-last`, all unused by anyone else. */
export interface UidRange {
  readonly first: number;
  readonly last: number;
}

export function parseUidRange(text: string): UidRange | undefined {
  const match = /^(\d+)-(\d+)$/.exec(text.trim());
  if (match === null) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2]);
  // 0 is root; above 2^32-2 is no uid (and -1 means "unchanged" to the kernel).
  if (first < 1 || last < first || last > 4_294_967_294) return undefined;
  return { first, last };
}

/**
 * Claims a uid of the range for `instanceId`, once: a file per uid in <dataDir>/uids, made with
 * O_EXCL, so two backends (in any process) never give one uid to two boxes. The search starts
 * at the id's hash, so boxes rarely probe past each other. A box keeps its uid for its life.
 */
export async function claimBoxUser(options: {
  readonly dataDir: string;
  readonly instanceId: string;
  readonly range: UidRange;
}): Promise<BoxUser> {
  const folder = join(options.dataDir, "uids");
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const { first, last } = options.range;
  const size = last - first + 1;
  const start = createHash("sha256").update(options.instanceId).digest().readUInt32BE(0) % size;
  for (let step = 0; step < size; step += 1) {
    const uid = first + ((start + step) % size);
    const claim = join(folder, String(uid));
    try {
      const handle = await open(claim, "wx", 0o600);
      await handle.writeFile(options.instanceId);
      await handle.close();
      return { uid, gid: uid };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // Ours already (a create retried after a crash), or another box's.
      if ((await readFile(claim, "utf8").catch(() => "")) === options.instanceId)
        return { uid, gid: uid };
    }
  }
  throw new BackendError({
    code: "capacity",
    message: `every uid of BERTH_BOX_UIDS (${String(first)}-${String(last)}) is given to a box`,
    instanceId: options.instanceId,
  });
}

/** Gives a terminated box's uid back (a claim naming another box is not touched). */
export async function releaseBoxUser(options: {
  readonly dataDir: string;
  readonly instanceId: string;
  readonly user: BoxUser;
}): Promise<void> {
  const claim = join(options.dataDir, "uids", String(options.user.uid));
  if ((await readFile(claim, "utf8").catch(() => "")) === options.instanceId)
    await rm(claim, { force: true });
}

/**
 * The box's user for a start: the one it was given (kept for its life), or a new claim. Its
 * workspace is its user's: one an older Berth made as root is given to it now, since git refuses
 * a repository another user owns.
 */
export async function prepareBoxUser(options: {
  readonly dataDir: string;
  readonly layout: BoxLayout;
  readonly recorded: BoxUser | null;
  readonly range: UidRange;
  readonly logger: LocalBackendLogger;
}): Promise<BoxUser> {
  const { layout } = options;
  const user =
    options.recorded ??
    (await claimBoxUser({
      dataDir: options.dataDir,
      instanceId: layout.instanceId,
      range: options.range,
    }));
  if ((await stat(layout.workspace)).uid !== user.uid) {
    await run("chown", ["-hR", `${String(user.uid)}:${String(user.gid)}`, layout.workspace]);
    options.logger.info(
      { instanceId: layout.instanceId, uid: user.uid },
      "workspace given to the box's user",
    );
  }
  return user;
}
