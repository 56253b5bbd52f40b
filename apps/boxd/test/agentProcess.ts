import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

/** A real `node boxd.mjs agent …` process, its output kept for assertions and failures. */
export interface AgentProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function startAgent(options: {
  readonly bundle: string;
  readonly cwd: string;
  readonly args: readonly string[];
  /** The agent's environment; this process's by default. */
  readonly env?: NodeJS.ProcessEnv;
}): AgentProcess {
  const child = spawn(process.execPath, [options.bundle, "agent", ...options.args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return {
    child,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
