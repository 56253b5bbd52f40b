import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { BoxError, type ExecResult, type OperationRequest } from "@berth/box-protocol";
import { commandLine, execFailureOf, type CommandUser } from "../commandUser.ts";
import { OutputCapture } from "./outputCapture.ts";
import { startFailure } from "./startFailure.ts";

export interface ExecContext {
  /** The confined working folder, already resolved to a real path inside the workspace. */
  readonly cwd: string;
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Who the command runs as (commandUser.ts); undefined: as boxd. */
  readonly user: CommandUser | undefined;
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
  // The schema refuses it first; said the same way here for a caller that skips it.
  if (command === "")
    throw new BoxError("invalid_request", "argv[0] must not be empty: it names the program to run");
  const env = { ...context.baseEnv, ...request.env };
  const attempt = { program: command, cwd: context.cwd, searchPath: env.PATH };
  const started = performance.now();
  let child: ChildProcessWithoutNullStreams;
  try {
    const [file, ...fileArgs] = commandLine(context.user, [command, ...args]);
    child = spawn(file, fileArgs, { cwd: context.cwd, env, detached: true, stdio: "pipe" });
  } catch (error) {
    // spawn refuses some arguments by throwing (NUL in argv or env), before any process exists.
    throw await startFailure(error, attempt);
  }
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
        // Emitted instead of "spawn" when the program could not start (ENOENT, EACCES, …);
        // after a start (no pid before), only for a failed kill or pipe: internal.
        let notStarted = false;
        child.once("error", (error) => {
          if (child.pid !== undefined) {
            reject(new BoxError("internal", `${command}: ${error.message}`, { cause: error }));
            return;
          }
          notStarted = true;
          void startFailure(error, attempt).then(reject);
        });
        child.once("exit", () => {
          // Stop waiting for pipes a background grandchild still holds open.
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
          }, PIPE_GRACE_MS).unref();
        });
        child.once("close", (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
          // A program that never started closes too, its "exit code" the negated errno: the
          // error above answers instead (its diagnosis takes a moment, so it lands after this).
          if (!notStarted) resolve({ code: exitCode, signal: exitSignal });
        });
      },
    );
    // Run as the box's user, a program that could not start is setpriv's failure to exec it.
    const notExecuted =
      context.user === undefined
        ? undefined
        : execFailureOf(command, { code, stderr: stderr.text("utf8") });
    if (notExecuted !== undefined) throw await startFailure(notExecuted, attempt);
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
