import { CommanderError, type Command } from "commander";
import { CliContext } from "./context.ts";
import { readCliEnv } from "./env.ts";
import { CliError, toCliError } from "./errors.ts";
import { exitCodes } from "./exitCodes.ts";
import { toJson } from "./output.ts";
import { buildProgram } from "./program.ts";

// The `berth` entry point: run one command, report any failure once, exit with its code.

/** Whether --json was asked for, read from the raw arguments (a usage error may stop parsing first). */
function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--json");
}

function usageFailure(error: CommanderError, program: Command, args: readonly string[]): CliError {
  const known = new Set(program.commands.map((command) => command.name()));
  const name = args.find((arg) => known.has(arg));
  const hint =
    name === "exec" && error.code === "commander.unknownOption"
      ? "Put the command after --, e.g. `berth exec -- ls -la`."
      : `See \`berth ${name === undefined ? "" : `${name} `}--help\`.`;
  return new CliError({
    reason: "usage",
    code: error.code.replace(/^commander\./, "").replaceAll(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    message: error.message.replace(/^error: /, ""),
    hint,
  });
}

function report(failure: CliError, json: boolean): void {
  process.stderr.write(`berth: ${failure.message}\n${failure.hint}\n`);
  if (json)
    process.stdout.write(
      `${toJson({
        error: {
          code: failure.code,
          reason: failure.reason,
          exitCode: failure.exitCode,
          message: failure.message,
          hint: failure.hint,
        },
      })}\n`,
    );
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const cli = new CliContext(readCliEnv());
  const program = buildProgram(cli);
  try {
    // No command at all: the help, as a usage error (scripts that forget a word learn so).
    if (args.length === 0) {
      process.stderr.write(program.helpInformation());
      return exitCodes.usage;
    }
    await program.parseAsync(args, { from: "user" });
    return cli.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end parsing by throwing, with their own code (0).
      if (error.exitCode === 0) return exitCodes.ok;
      if (error.code === "commander.help") return exitCodes.usage;
      const failure = usageFailure(error, program, args);
      report(failure, wantsJson(args));
      return failure.exitCode;
    }
    const failure = toCliError(error, cli.errorScope);
    report(failure, wantsJson(args));
    return failure.exitCode;
  }
}

// A reader that goes away (`berth cat big | head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  process.exit(error.code === "EPIPE" ? exitCodes.ok : exitCodes.unexpected);
});

const code = await main();
// Open keep-alive sockets or a paused stdin must not keep a finished command alive; exit once
// stdout has taken everything written to it.
process.stdout.write("", () => process.exit(code));
