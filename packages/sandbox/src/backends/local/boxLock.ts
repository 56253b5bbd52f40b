import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { BackendError } from "../../spawner/backend.ts";
import { identify, isRunning } from "./processInfo.ts";

// Web and worker may each hold a LocalBackend over the same data folder. Without a lock, two
// resumes of a dead box would start two boxd on one workspace. So every change to a box runs
// under its lock: in this process a promise chain, across processes a lock file created with
// O_EXCL that names its holder, taken over when that holder has died.

const inProcess = new Map<string, Promise<void>>();

const holderSchema = z.object({
  pid: z.number().int(),
  startTicks: z.string().nullable(),
  bootId: z.string().nullable(),
  nonce: z.string(),
});

/** A lock file with no readable holder this old was left by a writer that died mid-write. */
const UNREADABLE_STALE_MS = 10_000;
const POLL_MS = 50;

export async function withBoxLock<T>(
  lock: { readonly path: string; readonly timeoutMs: number; readonly instanceId: string },
  work: () => Promise<T>,
): Promise<T> {
  const previous = inProcess.get(lock.path) ?? Promise.resolve();
  let release = (): void => undefined;
  const mine = previous.then(
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
      }),
  );
  inProcess.set(lock.path, mine);
  await previous;
  try {
    const content = await acquireFile(lock);
    try {
      return await work();
    } finally {
      await releaseFile(lock.path, content);
    }
  } finally {
    release();
    if (inProcess.get(lock.path) === mine) inProcess.delete(lock.path);
  }
}

async function acquireFile(lock: {
  readonly path: string;
  readonly timeoutMs: number;
  readonly instanceId: string;
}): Promise<string> {
  const me = { ...(await identify(process.pid)), nonce: randomBytes(8).toString("hex") };
  const content = JSON.stringify(me);
  const deadline = Date.now() + lock.timeoutMs;
  await mkdir(dirname(lock.path), { recursive: true });
  for (;;) {
    try {
      await writeFile(lock.path, content, { flag: "wx", mode: 0o600 });
      return content;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const held = await readHeld(lock.path);
    if (held !== undefined && (await isStale(lock.path, held))) {
      // Remove it only if it is still the one judged stale, not one a rival took meanwhile.
      // (Two takers of the same stale lock within microseconds can still both succeed.)
      if ((await readHeld(lock.path)) === held) await rm(lock.path, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new BackendError({
        code: "unavailable",
        message: `box ${lock.instanceId} is busy: another operation holds ${lock.path} (${held ?? "unreadable"})`,
        instanceId: lock.instanceId,
      });
    }
    await delay(POLL_MS);
  }
}

async function readHeld(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

async function isStale(path: string, held: string): Promise<boolean> {
  let holder: z.infer<typeof holderSchema> | undefined;
  try {
    const parsed = holderSchema.safeParse(JSON.parse(held));
    holder = parsed.success ? parsed.data : undefined;
  } catch {
    holder = undefined;
  }
  if (holder !== undefined) return !(await isRunning(holder));
  // Created but not yet written (or cut short): give its writer time before taking over.
  try {
    return Date.now() - (await stat(path)).mtimeMs > UNREADABLE_STALE_MS;
  } catch {
    return false;
  }
}

async function releaseFile(path: string, content: string): Promise<void> {
  if ((await readHeld(path)) === content) await rm(path, { force: true });
}
