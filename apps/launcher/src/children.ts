import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { Logger } from "pino";

export interface ChildSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface RunningChild {
  readonly name: string;
  readonly process: ChildProcess;
  /** Settles when the child exits, with its code or signal. */
  readonly exited: Promise<{
    readonly code: number | null;
    readonly signal: NodeJS.Signals | null;
  }>;
}

/** How long a child may take to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 10_000;

/** Starts a child that shares our stdout/stderr, so its structured logs reach the terminal. */
export function startChild(spec: ChildSpec, logger: Logger): RunningChild {
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  // Not `pid`: the logger's own field names the launcher.
  logger.info({ child: spec.name, childPid: child.pid }, `started ${spec.name}`);
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return { name: spec.name, process: child, exited };
}

/** SIGTERM, then SIGKILL after the grace period; resolves when the child is gone. */
export async function stopChild(child: RunningChild, logger: Logger): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill("SIGTERM");
  const timer = setTimeout(() => {
    logger.warn({ child: child.name }, `${child.name} did not stop in time; killing it`);
    child.process.kill("SIGKILL");
  }, STOP_GRACE_MS);
  await child.exited;
  clearTimeout(timer);
}
