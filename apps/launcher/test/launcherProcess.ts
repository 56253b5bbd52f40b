import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { join } from "node:path";

const main = join(import.meta.dirname, "..", "src", "main.ts");

export interface LauncherProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  /** Resolves with the URL once the launcher says Berth is running. */
  readonly running: Promise<string>;
}

/** The real start entry, in its own process group so a test can kill it with its children. */
export function startLauncher(env: Record<string, string>): LauncherProcess {
  const child = spawn(process.execPath, ["--import", "tsx", main], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  let onRunning: ((url: string) => void) | undefined;
  const running = new Promise<string>((resolve) => (onRunning = resolve));
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    const url = /Berth is running at (http:\/\/\S+)/.exec(output)?.[1];
    if (url !== undefined) onRunning?.(url);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return { child, output: () => output, exited, running };
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
