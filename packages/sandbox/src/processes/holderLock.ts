import { randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { z } from "zod";
import { identify, isRunning } from "./processInfo.ts";

// A lock between processes that needs no server: a file created with O_EXCL that names its
// holder (pid, process start ticks, boot id, host, pid namespace). Whoever finds it may take it over once that
// holder is dead — never because of its age, so a slow holder keeps its lock for as long as it
// runs. Local boxes' folders (backends/local/boxLock.ts) and archive captures' pending blobs
// (archives/filesystemArchiveStore.ts) are locked this way.

const holderSchema = z.object({
  pid: z.number().int(),
  startTicks: z.string().nullable(),
  bootId: z.string().nullable(),
  /** Absent in locks written before hosts were recorded: those were this host's. */
  host: z.string().optional(),
  /**
   * The holder's pid namespace ("pid:[4026531836]"): containers sharing a host name (host
   * networking) still number their processes apart. Absent without procfs.
   */
  pidNamespace: z.string().optional(),
  /** Tells this lock from any other the same process takes. */
  nonce: z.string(),
});

/** Who holds a lock: a process, told apart from any later one with its pid (processInfo.ts). */
export type LockHolder = z.infer<typeof holderSchema>;

/** A lock file this old that names no holder was left by a writer that died writing it. */
const UNREADABLE_STALE_MS = 10_000;

/** This process as a holder, with a nonce of its own for this one lock. */
export async function thisHolder(): Promise<LockHolder> {
  const identity = await identify(process.pid);
  const pidNamespace = ownPidNamespace();
  return {
    ...identity,
    host: hostname(),
    ...(pidNamespace === undefined ? {} : { pidNamespace }),
    nonce: randomBytes(8).toString("hex"),
  };
}

let pidNamespaceOnce: string | null | undefined;
function ownPidNamespace(): string | undefined {
  if (pidNamespaceOnce === undefined) {
    try {
      pidNamespaceOnce = readlinkSync("/proc/self/ns/pid");
    } catch {
      pidNamespaceOnce = null;
    }
  }
  return pidNamespaceOnce ?? undefined;
}

/** Whether the holder's pid names a process this one can see: same host, same pid namespace. */
function seenFromHere(holder: LockHolder): boolean {
  if (holder.host !== undefined && holder.host !== hostname()) return false;
  const here = ownPidNamespace();
  return holder.pidNamespace === undefined || here === undefined || holder.pidNamespace === here;
}

/**
 * A lock file as found. `free`: there is none. `live`: its holder runs on this host (or its
 * writer is still writing it). `dead`: its holder has exited, or it never named one. `elsewhere`:
 * its holder runs on another host (or in another pid namespace) sharing the folder, whose
 * processes this one cannot see.
 * `text` is what the file held, to take it over with `removeLockIf`.
 */
export type LockState =
  | { readonly kind: "free" }
  | {
      readonly kind: "live" | "dead" | "elsewhere";
      readonly text: string;
      readonly mtimeMs: number;
    };

export async function inspectLock(path: string): Promise<LockState> {
  let text: string;
  let mtimeMs: number;
  try {
    ({ mtimeMs } = await stat(path));
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "free" };
    throw error;
  }
  const holder = parseHolder(text);
  if (holder === undefined) {
    // Created but not yet written (or cut short): give its writer time before taking over.
    const dead = Date.now() - mtimeMs > UNREADABLE_STALE_MS;
    return { kind: dead ? "dead" : "live", text, mtimeMs };
  }
  if (!seenFromHere(holder)) return { kind: "elsewhere", text, mtimeMs };
  return { kind: (await isRunning(holder)) ? "live" : "dead", text, mtimeMs };
}

/**
 * How a holder recorded elsewhere than a lock file (a database row) fares: `live` or `dead` when
 * this host can see its process, `elsewhere` when it cannot; a value naming no holder is `dead`.
 */
export async function holderLiveness(value: unknown): Promise<"live" | "dead" | "elsewhere"> {
  const parsed = holderSchema.safeParse(value);
  if (!parsed.success) return "dead";
  if (!seenFromHere(parsed.data)) return "elsewhere";
  return (await isRunning(parsed.data)) ? "live" : "dead";
}

/** Creates the lock file with `text` (O_EXCL); false when one exists already. */
export async function createLock(path: string, text: string): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(path, text, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Removes the lock file only if it still holds `text`: a holder releasing its own lock, or a
 * taker removing the dead holder's it judged, never one a rival took meanwhile. (Two takers of
 * the same dead lock within microseconds can still both succeed.)
 */
export async function removeLockIf(path: string, text: string): Promise<boolean> {
  let found: string;
  try {
    found = await readFile(path, "utf8");
  } catch {
    return false;
  }
  if (found !== text) return false;
  await rm(path, { force: true });
  return true;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const parsed = holderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
