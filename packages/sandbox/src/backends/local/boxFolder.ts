import { createHash, randomBytes } from "node:crypto";
import { open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { BackendError, noBoxLimits, type BoxConfinement } from "../../spawner/backend.ts";
import { executionProfileSchema } from "../../spawner/executionProfile.ts";
import { isInstanceId } from "./instanceIds.ts";

// A local box is one folder, <dataDir>/boxes/<instanceId>/:
//   workspace/   what boxd serves (the only part a bubblewrap box can see, and write)
//   box.json     the record below: metadata, creation time, isolation, network, limits, boxd
//   boxd.log     boxd's stdout and stderr, appended across restarts
//   bwrap.json   bubblewrap's --info-fd output of the latest start (the sandbox's host pid)
//   etc/         the box's own /etc files (passwd, hosts, resolv.conf, …), bound read-only
// and boxd's socket is <dataDir>/run/<short name>.sock (a socket path holds at most 107 bytes).
// The box token is derived from BERTH_SECRET whenever it is needed and never written here.

export interface BoxLayout {
  readonly instanceId: string;
  readonly folder: string;
  readonly workspace: string;
  readonly recordFile: string;
  readonly logFile: string;
  readonly bwrapInfoFile: string;
  readonly etcFolder: string;
  /** The folder of every box's socket (0700): outside what any box can see. */
  readonly socketFolder: string;
  /** boxd's socket's name in socketFolder. */
  readonly socketName: string;
}

/** sun_path holds 108 bytes with its NUL; Node truncates a longer path silently. */
export const MAX_SOCKET_PATH_BYTES = 107;

export function socketPathOf(layout: BoxLayout): string {
  return join(layout.socketFolder, layout.socketName);
}

export function boxesFolder(dataDir: string): string {
  return join(dataDir, "boxes");
}

export function boxLayout(options: {
  readonly dataDir: string;
  readonly instanceId: string;
}): BoxLayout {
  const folder = join(boxesFolder(options.dataDir), options.instanceId);
  return {
    instanceId: options.instanceId,
    folder,
    workspace: join(folder, "workspace"),
    recordFile: join(folder, "box.json"),
    logFile: join(folder, "boxd.log"),
    bwrapInfoFile: join(folder, "bwrap.json"),
    etcFolder: join(folder, "etc"),
    socketFolder: join(options.dataDir, "run"),
    // 16 hex digits of the id's hash: short enough for a long data folder's path, and as
    // unlikely to collide as the ids are.
    socketName: `${createHash("sha256").update(options.instanceId).digest("hex").slice(0, 16)}.sock`,
  };
}

export const boxMetadataSchema = z.object({
  workspaceId: z.string().min(1).max(200),
  leaseId: z.string().min(1).max(200),
  sandboxGroupId: z.string().min(1).max(200).optional(),
  epoch: z.number().int().nonnegative(),
  allocationId: z.string().min(1).max(200),
  installationId: z.uuid().optional(),
});

/** The running boxd: `pid` leads the box's process group (bubblewrap: the sandbox's init). */
const boxdProcessSchema = z.object({
  pid: z.number().int().positive(),
  startTicks: z.string().nullable(),
  bootId: z.string().nullable(),
  socketPath: z.string().min(1),
  startedAt: z.iso.datetime(),
});

/** A limit the box is given: positive, or null for none (unlimited, or not enforced here). */
const limitSchema = z.number().int().positive().nullable();

/**
 * The box's resource limits, the one place create reads them from. A record written before
 * limits were recorded has none.
 */
const boxLimitsSchema = z
  .object({
    processes: limitSchema,
    memoryBytes: limitSchema,
    cpuWeight: limitSchema,
    diskBytes: limitSchema,
  })
  .default(noBoxLimits);

const recordFields = {
  instanceId: z.string(),
  metadata: boxMetadataSchema,
  /** What the box was created to run; null on a box recorded before profiles were. */
  profile: executionProfileSchema.nullable().default(null),
  createdAt: z.iso.datetime(),
  isolation: z.enum(["bubblewrap", "none"]),
};

const boxRecordSchema = z.union([
  z.object({
    format: z.literal(2),
    ...recordFields,
    /** The network of its latest start (boxNetwork.ts). */
    network: z.enum(["none", "egress", "host"]),
    /** The host user its commands run as (boxUsers.ts); null: the control plane's own. */
    user: z
      .object({ uid: z.number().int().positive(), gid: z.number().int().positive() })
      .nullable()
      .default(null),
    limits: boxLimitsSchema,
    /** null while suspended (or never started). */
    boxd: boxdProcessSchema.nullable(),
  }),
  // A box from before boxd listened on a socket: it ran on the host's network, and its boxd
  // (on a TCP port) is not one this backend can reach. Read as stopped: the next start's stray
  // scan ends that boxd, and the box starts again as today's boxes do.
  z.object({ format: z.literal(1), ...recordFields, boxd: z.unknown() }).transform((old) => ({
    ...old,
    format: 2 as const,
    network: "host" as const,
    user: null,
    limits: noBoxLimits,
    boxd: null,
  })),
]);

export type BoxRecord = z.output<typeof boxRecordSchema>;
export type BoxdProcess = z.infer<typeof boxdProcessSchema>;

/** What the box runs with, as its record says: what create reports for the lease to record. */
export function confinementOf(record: BoxRecord): BoxConfinement {
  return { isolation: record.isolation, network: record.network, limits: record.limits };
}

/** The box's record; undefined when there is none (no such box, or a create cut short). */
export async function readBoxRecord(layout: BoxLayout): Promise<BoxRecord | undefined> {
  let text: string;
  try {
    text = await readFile(layout.recordFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(layout, error);
  }
  const record = boxRecordSchema.safeParse(parsed);
  if (!record.success || record.data.instanceId !== layout.instanceId) {
    throw corrupt(layout, record.error);
  }
  return record.data;
}

function corrupt(layout: BoxLayout, cause: unknown): BackendError {
  return new BackendError({
    code: "internal",
    message: `${layout.recordFile} is not a valid box record`,
    instanceId: layout.instanceId,
    cause,
  });
}

/** Replaces the record atomically (temp file, fsync, rename): a crash leaves the old or the new. */
export async function writeBoxRecord(layout: BoxLayout, record: BoxRecord): Promise<void> {
  const temp = `${layout.recordFile}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, layout.recordFile);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** The instance ids of every box folder (names that are not instance ids are not boxes). */
export async function listInstanceIds(dataDir: string): Promise<string[]> {
  try {
    return (await readdir(boxesFolder(dataDir))).filter((name) => isInstanceId(name)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
