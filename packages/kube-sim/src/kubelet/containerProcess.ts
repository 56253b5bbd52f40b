/**
 * A container as a real child process: spawned in its own process group (so a runtime that forks,
 * a shell or a package runner, dies whole), its output kept for `logs()`, signalled as a group.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import type { RuntimeCommand } from "./runtimes.ts";

/** How much of each container's output is kept for `logs()`. */
const LOG_LIMIT = 64 * 1024;

export interface ContainerProcess {
  name: string;
  image: string;
  child: ChildProcess;
  spawned: boolean;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  startedAt: string | undefined;
  output: string;
}

/**
 * Spawns a container's command with its env; `changed` is called once it has started and once it
 * has ended (or failed to start, which counts as exit code 128).
 */
export function spawnContainer(
  container: { name: string; image: string },
  command: RuntimeCommand & { baseEnv: Record<string, string> },
  on: { started: (proc: ContainerProcess) => void; ended: (proc: ContainerProcess) => void },
): ContainerProcess {
  const [file = "", ...args] = command.command;
  const child = spawn(file, args, {
    env: { ...command.baseEnv, ...command.env },
    ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const proc: ContainerProcess = {
    ...container,
    child,
    spawned: false,
    exit: undefined,
    startedAt: undefined,
    output: "",
  };
  const collect = (chunk: Buffer): void => {
    proc.output = (proc.output + chunk.toString()).slice(-LOG_LIMIT);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  child.once("spawn", () => {
    proc.spawned = true;
    on.started(proc);
  });
  child.once("error", (error) => {
    proc.output += `\n${error.message}`;
    proc.exit ??= { code: 128, signal: null };
    on.ended(proc);
  });
  child.once("exit", (code, signal) => {
    proc.exit = { code, signal };
    on.ended(proc);
  });
  return proc;
}

/** Signals the process's whole group; a process that left its group is signalled itself. */
export function signalContainer(p: ContainerProcess, signal: NodeJS.Signals): void {
  const pid = p.child.pid;
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone; signal the process itself in case it left its group.
    try {
      p.child.kill(signal);
    } catch {
      // Already exited.
    }
  }
}
