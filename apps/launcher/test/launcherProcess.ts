import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";

const main = join(import.meta.dirname, "..", "src", "main.ts");
const repoRoot = join(import.meta.dirname, "..", "..", "..");

export interface LauncherProcess extends AsyncDisposable {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  /** Resolves with the URL once the launcher says Berth is running. */
  readonly running: Promise<string>;
}

/**
 * The real start entry, run as scripts/start.sh runs it, in its own process group so a test can
 * kill it with its children.
 */
export function startLauncher(env: Record<string, string>): LauncherProcess {
  return watchStart(
    spawn(process.execPath, ["--import", "tsx", main], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    }),
  );
}

/**
 * The README's start command, `npm start` in the repository (npm, its script, scripts/start.sh,
 * the launcher), past the install and build steps (BERTH_SKIP_SETUP=1: the tests run on a built
 * checkout, and a test must not reinstall the workspace under its neighbours). Its own process
 * group, as a terminal gives it.
 */
export function startCommand(env: Record<string, string>): LauncherProcess {
  return watchStart(
    spawn("npm", ["start"], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        BERTH_SKIP_SETUP: "1",
        npm_config_update_notifier: "false",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    }),
  );
}

function watchStart(child: ChildProcess): LauncherProcess {
  let output = "";
  let onRunning: ((url: string) => void) | undefined;
  const running = new Promise<string>((resolve) => (onRunning = resolve));
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    const url = /Berth is running at (http:\/\/\S+)/.exec(output)?.[1];
    if (url !== undefined) onRunning?.(url);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const launcher: LauncherProcess = {
    child,
    output: () => output,
    exited,
    running,
    [Symbol.asyncDispose]: () => killGroup(launcher),
  };
  return launcher;
}

/** Races `running` against the process exiting first, so a failed start fails fast with its log. */
export async function untilRunning(launcher: LauncherProcess): Promise<string> {
  return Promise.race([
    launcher.running,
    launcher.exited.then((code) => {
      throw new Error(`launcher exited (${String(code)}) before serving:\n${launcher.output()}`);
    }),
  ]);
}

/** Kills the launcher's whole process group, as a crash or `kill -9` of the session would. */
export async function killGroup(launcher: LauncherProcess): Promise<void> {
  const pid = launcher.child.pid;
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    return; // already gone
  }
  await launcher.exited;
}

/**
 * A free port below Linux's ephemeral range (32768+), so the embedded database's own port-0
 * listener can never be handed the port we picked between our check and the launcher's bind.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once("error", () => {
        resolve(false);
      });
      server.listen(port, "127.0.0.1", () => {
        resolve(true);
      });
    });
    if (bound) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
  throw new Error("no free port found in 20000–32000");
}

/** The pids a start logged: the launcher's, and its web server's and worker's. */
export function startedPids(launcher: LauncherProcess): {
  launcher: number;
  web: number;
  worker: number;
} {
  const output = launcher.output();
  const find = (pattern: RegExp) => {
    const pid = Number(pattern.exec(output)?.[1]);
    if (!Number.isInteger(pid)) throw new Error(`no ${String(pattern)} in:\n${output}`);
    return pid;
  };
  return {
    launcher: find(/"service":"launcher","pid":(\d+)/),
    web: find(/"child":"web","childPid":(\d+)/),
    worker: find(/"child":"worker","childPid":(\d+)/),
  };
}

/** Whether `pid` is gone: no such process, or one that exited and awaits its parent (a zombie). */
export async function isGone(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, "utf8").catch(() => undefined);
  // The state follows the command name, which is in parentheses and may hold anything.
  return stat === undefined || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
}

/** Resolves once every pid is gone; rejects naming those still there after `timeoutMs`. */
export async function untilGone(pids: Record<string, number>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left: string[] = [];
    for (const [name, pid] of Object.entries(pids)) if (!(await isGone(pid))) left.push(name);
    if (left.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`still running after ${String(timeoutMs)} ms: ${left.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
