import { setTimeout as delay } from "node:timers/promises";
import { createLock, inspectLock, removeLockIf, thisHolder } from "../../processes/holderLock.ts";
import { BackendError } from "../../spawner/backend.ts";

// Web and worker may each hold a LocalBackend over the same data folder. Without a lock, two
// resumes of a dead box would start two boxd on one workspace. So every change to a box runs
// under its lock: in this process a promise chain, across processes a holder lock file
// (processes/holderLock.ts: O_EXCL, names its holder, taken over when that holder has died).

const inProcess = new Map<string, Promise<void>>();

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
      await removeLockIf(lock.path, content);
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
  const content = JSON.stringify(await thisHolder());
  const deadline = Date.now() + lock.timeoutMs;
  for (;;) {
    if (await createLock(lock.path, content)) return content;
    const held = await inspectLock(lock.path);
    if (held.kind === "free") continue;
    if (held.kind === "dead") {
      await removeLockIf(lock.path, held.text);
      continue;
    }
    // Live here, or another host's: it is released by its holder (or found dead later).
    if (Date.now() >= deadline) {
      throw new BackendError({
        code: "unavailable",
        message: `box ${lock.instanceId} is busy: another operation holds ${lock.path} (${held.text})`,
        instanceId: lock.instanceId,
      });
    }
    await delay(POLL_MS);
  }
}
