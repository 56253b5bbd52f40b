import { constants } from "node:os";
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { usageError } from "../errors.ts";
import { readStdinBytes } from "../prompt.ts";
import { withSession } from "./sessionOption.ts";

interface ExecOptions {
  readonly cwd: string;
  readonly env: string[];
  readonly timeout?: string;
  readonly stdin?: boolean;
}

export function registerExec(program: Command, cli: CliContext): void {
  withSession(program.command("exec"))
    .description("Run a command in the session's box (argv, no shell) and exit with its code")
    .argument("<command...>", "the command and its arguments, after --")
    .option("--cwd <path>", "where it runs, inside the workspace", "")
    .option("-e, --env <name=value>", "an environment variable (repeatable)", collect, [])
    .option("--timeout <seconds>", "kill it after this long (default 60)")
    .option("-i, --stdin", "send this terminal's stdin to the command")
    .addHelpText(
      "after",
      '\nExamples:\n  berth exec -- ls -la\n  berth exec -- sh -c "make test 2>&1 | tail"\n\nThe exit code is the command\'s own (128+n for a signal n).',
    )
    .action(async (argv: string[], options: ExecOptions, command: Command) => {
      const env = Object.fromEntries(options.env.map(parseEnv));
      const timeoutMs = options.timeout === undefined ? undefined : parseTimeout(options.timeout);
      const stdin = options.stdin === true ? (await readStdinBytes()).toString("utf8") : undefined;
      const session = await cli.session(command);
      const out = cli.output(command);
      const result = await session.client.exec.run.mutate({
        ...session.scope,
        argv,
        cwd: options.cwd,
        env,
        // The exact bytes for people (binary output survives); readable text for scripts.
        encoding: out.json ? "utf8" : "base64",
        ...(stdin === undefined ? {} : { stdin }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      if (out.json) out.result(result, () => "");
      else {
        process.stdout.write(Buffer.from(result.stdout, "base64"));
        process.stderr.write(Buffer.from(result.stderr, "base64"));
      }
      if (result.timedOut) out.note(`berth: ${argv[0] ?? ""} timed out and was killed.`);
      if (result.stdoutTruncated || result.stderrTruncated)
        out.note("berth: the output was cut short (exec keeps 1 MiB per stream).");
      cli.exitCode = exitCodeOf(result);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseEnv(pair: string): [string, string] {
  const at = pair.indexOf("=");
  if (at <= 0)
    throw usageError(`--env ${pair} is not name=value.`, "Write it as --env NAME=value.");
  return [pair.slice(0, at), pair.slice(at + 1)];
}

function parseTimeout(text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600)
    throw usageError(`--timeout ${text} is not a number of seconds.`, "Give 1 to 3600.");
  return Math.round(seconds * 1000);
}

/** As a shell reports it: the code, or 128 + the signal's number. */
function exitCodeOf(result: { exitCode: number | null; signal: string | null }): number {
  if (result.exitCode !== null) return result.exitCode;
  const signal =
    result.signal === null
      ? undefined
      : (constants.signals as Record<string, number | undefined>)[result.signal];
  return signal === undefined ? 1 : 128 + signal;
}
