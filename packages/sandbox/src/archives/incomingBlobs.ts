import { unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import {
  createLock,
  inspectLock,
  removeLockIf,
  thisHolder,
  type LockState,
} from "../processes/holderLock.ts";
import type { AbandonedSweep, PendingBlobTag } from "./archiveStore.ts";

// The filesystem store's pending blobs: `<id>.part` in the incoming folder, written under
// `<id>.lock`, a holder lock file (processes/holderLock.ts) that also names the blob's tag. The
// lock is created before the part and removed after it, so a part without a lock was never a
// live writer's. A process killed mid-capture leaves both; a sweep takes the lock once its holder
// is dead and removes the part. Web and worker processes capture, on one host or on several
// sharing the folder: a holder on another host is judged by its heartbeat (it touches its lock
// every HEARTBEAT_MS), since this host cannot see its processes.

/** How often a writer touches its lock, so sweepers on other hosts see it is alive. */
const HEARTBEAT_MS = 10_000;

/** A lock from another host untouched this long (a dozen heartbeats) names a dead writer. */
export const DEFAULT_FOREIGN_QUIET_MS = 12 * HEARTBEAT_MS;

const tagSchema = z.object({ leaseId: z.uuid(), transferId: z.uuid() });

export const partName = (id: string) => `${id}.part`;
const lockName = (id: string) => `${id}.lock`;

/** Holds the lock of pending blob `id` (before its part exists) until `release`. */
export async function lockPendingBlob(
  folder: string,
  input: { readonly id: string; readonly tag: PendingBlobTag | undefined },
): Promise<{ release(): Promise<void> }> {
  const path = join(folder, lockName(input.id));
  const text = JSON.stringify({ ...(await thisHolder()), tag: input.tag });
  // A fresh random id: only a broken folder would already hold this lock.
  if (!(await createLock(path, text))) throw new Error(`pending blob lock ${path} exists`);
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    async release() {
      clearInterval(heartbeat);
      await removeLockIf(path, text);
    },
  };
}

/** When a lock held from another host last changed, as this sweeper first saw it so. */
interface Quiet {
  readonly text: string;
  readonly mtimeMs: number;
  readonly since: number;
}

/**
 * Sweeps one incoming folder. It remembers, between sweeps, how long each lock held from another
 * host has gone untouched: that holder counts as dead once its lock was not touched for
 * `foreignQuietMs` of this sweeper's clock (the holder's clock and the file server's never
 * enter the comparison).
 */
export class IncomingSweeper {
  readonly #folder: string;
  readonly #foreignQuietMs: number;
  readonly #clock: Clock;
  readonly #quiet = new Map<string, Quiet>();

  constructor(options: { folder: string; foreignQuietMs: number; clock: Clock }) {
    this.#folder = options.folder;
    this.#foreignQuietMs = options.foreignQuietMs;
    this.#clock = options.clock;
  }

  async sweep(
    ids: ReadonlySet<string>,
    onAbandoned: ((tag: PendingBlobTag) => Promise<void>) | undefined,
  ): Promise<AbandonedSweep> {
    let removed = 0;
    let deferred = 0;
    for (const seen of this.#quiet.keys()) if (!ids.has(seen)) this.#quiet.delete(seen);
    for (const id of ids) {
      try {
        if (await this.#sweepOne(id, onAbandoned)) removed += 1;
      } catch {
        // The callback or the folder failed: all stays as it was, for the next sweep.
        deferred += 1;
      }
    }
    return { removed, deferred };
  }

  /** Whether it removed pending blob `id`'s part. */
  async #sweepOne(
    id: string,
    onAbandoned: ((tag: PendingBlobTag) => Promise<void>) | undefined,
  ): Promise<boolean> {
    const state = await inspectLock(join(this.#folder, lockName(id)));
    if (!(await this.#abandoned(id, state))) return false;
    const tag = state.kind === "free" ? undefined : tagOf(state.text);
    // Told first, while the blob still names its capture. Two sweepers may both tell: the
    // callback must be idempotent.
    if (tag !== undefined) await onAbandoned?.(tag);
    this.#quiet.delete(id);
    return this.#removeUnderLock(id, state);
  }

  async #abandoned(id: string, state: LockState): Promise<boolean> {
    switch (state.kind) {
      case "free":
      case "dead":
        return true;
      case "live":
        return false;
      case "elsewhere": {
        const now = (await this.#clock.now()).getTime();
        const seen = this.#quiet.get(id);
        if (seen === undefined || seen.text !== state.text || seen.mtimeMs !== state.mtimeMs) {
          this.#quiet.set(id, { text: state.text, mtimeMs: state.mtimeMs, since: now });
          return false;
        }
        return now - seen.since >= this.#foreignQuietMs;
      }
    }
  }

  /** Takes the dead holder's lock (a rival sweeper may win it: then it removes the part). */
  async #removeUnderLock(id: string, state: LockState): Promise<boolean> {
    const lock = join(this.#folder, lockName(id));
    if (state.kind !== "free") await removeLockIf(lock, state.text);
    const mine = JSON.stringify(await thisHolder());
    if (!(await createLock(lock, mine))) return false;
    try {
      await unlink(join(this.#folder, partName(id)));
      return true;
    } catch (error) {
      // Only the lock was left (its holder died releasing it, after removing the part).
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    } finally {
      await removeLockIf(lock, mine);
    }
  }
}

/** The ids of the pending blobs in a listing of the incoming folder (a part, a lock, or both). */
export function pendingIds(names: readonly string[]): Set<string> {
  return new Set(names.flatMap((name) => /^(.+)\.(?:part|lock)$/.exec(name)?.[1] ?? []));
}

function tagOf(text: string): PendingBlobTag | undefined {
  try {
    const parsed = z.object({ tag: tagSchema }).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.tag : undefined;
  } catch {
    return undefined;
  }
}
