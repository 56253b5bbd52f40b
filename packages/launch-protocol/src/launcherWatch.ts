/** How often a process notices its launcher is gone. */
const CHECK_EVERY_MS = 1_000;

export interface LauncherWatch {
  stop(): void;
}

/**
 * Calls `onGone` once the launcher (`pid`) is gone, so a web server or worker never serves on
 * without it — a SIGKILLed launcher runs no shutdown of its own.
 *
 * The launcher starts its children directly, so while it is our parent the watch compares
 * `process.ppid`: the kernel gives an orphan a new parent at once, which neither a reused pid
 * nor a dead launcher no one has reaped yet (a zombie, which `kill(pid, 0)` still finds) can
 * hide. A pid that is not our parent is watched by liveness instead.
 *
 * The timer is unref'd: watching never keeps a process alive by itself.
 */
export function watchLauncher(options: {
  readonly pid: number;
  readonly onGone: () => void;
  readonly periodMs?: number;
}): LauncherWatch {
  const { pid, onGone } = options;
  const isParent = process.ppid === pid;
  const gone = () => (isParent ? process.ppid !== pid : !isAlive(pid));
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    onGone();
  }, options.periodMs ?? CHECK_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
