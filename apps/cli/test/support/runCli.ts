import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The bundle the tests run, as `berth` runs for people. */
export const cliPath = fileURLToPath(new URL("../../dist/berth.mjs", import.meta.url));

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed: every --json command prints exactly one document. */
  json(): unknown;
}

/** The environment a command sees: nothing of the test process's own Berth variables. */
export interface CliEnvironment {
  readonly BERTH_CONFIG_DIR: string;
  readonly BERTH_URL?: string;
  readonly BERTH_TOKEN?: string;
  readonly BERTH_WORKSPACE?: string;
  readonly BERTH_SESSION?: string;
}

/** Runs `node dist/berth.mjs …args` to its end, with `input` on stdin. */
export function runCli(
  args: readonly string[],
  options: { env: CliEnvironment; input?: string | Uint8Array },
): Promise<CliRun> {
  const child = spawn(process.execPath, [cliPath, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: options.env.BERTH_CONFIG_DIR, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(options.input ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      const out = Buffer.concat(stdout).toString("utf8");
      resolve({
        code,
        stdout: out,
        stderr: Buffer.concat(stderr).toString("utf8"),
        json() {
          try {
            return JSON.parse(out) as unknown;
          } catch {
            throw new Error(
              `berth ${args.join(" ")} printed no JSON (exit ${String(code)}):\n${out}\n${Buffer.concat(stderr).toString("utf8")}`,
            );
          }
        },
      });
    });
  });
}
