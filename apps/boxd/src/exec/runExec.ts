import { spawn } from "node:child_process";
import { BoxError, type ExecResult, type OperationRequest } from "@berth/box-protocol";
import { OutputCapture } from "./outputCapture.ts";

export interface ExecContext {
  /** The confined working folder, already resolved to a real path inside the workspace. */
  readonly cwd: string;
  readonly baseEnv: Readonly<Record<string, string>>;
}

/** After the process exits, how long its pipes may stay open (held by a daemonized child). */
const PIPE_GRACE_MS = 500;

/**
 * Runs argv directly (no shell) in its own process group, so a timeout kills the command and
 * everything it started. stdout and stderr are kept up to the limit each, and the rest is
 * read and dropped (so the child never blocks on a full pipe), with a truncated flag.
 */
export async function runExec(
  context: ExecContext,
  request: OperationRequest<"exec">,
): Promise<ExecResult> {
  const [command = "", ...args] = request.argv;
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: context.cwd,
    env: { ...context.baseEnv, ...request.env },
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout = new OutputCapture(request.maxOutputBytes);
  const stderr = new OutputCapture(request.maxOutputBytes);
  child.stdout.on("data", (chunk: Buffer) => stdout.add(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk));
  // A child that exits without reading its stdin makes our write fail with EPIPE: not an error.
  child.stdin.on("error", () => undefined);
  child.stdin.end(request.stdin ?? "");

  let timedOut = false;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, request.timeoutMs);

  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>(
      (resolve, reject) => {
        child.once("error", (error) => {
          const missing = "code" in error && error.code === "ENOENT";
          reject(
            missing
              ? new BoxError("not_found", `${command}: command not found`)
              : new BoxError("internal", `${command}: ${error.message}`),
          );
        });
        child.once("exit", () => {
          // Stop waiting for pipes a background grandchild still holds open.
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
          }, PIPE_GRACE_MS).unref();
        });
        child.once("close", (exitCode: number | null, exitSignal: NodeJS.Signals | null) =>
          resolve({ code: exitCode, signal: exitSignal }),
        );
      },
    );
    return {
      exitCode: code,
      signal,
      timedOut,
      stdout: stdout.text(request.encoding),
      stderr: stderr.text(request.encoding),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    clearTimeout(timer);
  }
}
