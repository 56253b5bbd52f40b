import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { usageError } from "../errors.ts";
import { TerminalAttachment } from "../terminalAttachment.ts";
import { withSession } from "./sessionOption.ts";

interface TerminalOptions {
  readonly id?: string;
  readonly cwd: string;
}

export function registerTerminal(program: Command, cli: CliContext): void {
  withSession(program.command("terminal"))
    .description("Open a shell in the session's box and attach this terminal to it")
    .option("--id <terminal>", "reattach to an open terminal instead of opening one")
    .option("--cwd <path>", "where a new shell starts, inside the workspace", "")
    .addHelpText(
      "after",
      "\nCtrl-] detaches (the shell keeps running; reattach with --id). A dropped connection is\nresumed where it left off. Exits with the shell's exit code when the shell ends.",
    )
    .action(async (options: TerminalOptions, command: Command) => {
      if (cli.output(command).json)
        throw usageError(
          "terminal is interactive: it has no --json output.",
          "Use `berth exec --json -- …` in scripts.",
        );
      const session = await cli.session(command);
      const { stdin, stdout, stderr } = process;
      const size = { cols: stdout.columns || 80, rows: stdout.rows || 24 };
      const terminalId =
        options.id ??
        (await session.client.terminal.open.mutate({ ...session.scope, cwd: options.cwd, ...size }))
          .id;
      const attachment = new TerminalAttachment({
        session,
        terminalId,
        stdin,
        stdout,
        stderr,
        banner: `[berth] terminal ${terminalId} (Ctrl-] detaches)\r\n`,
      });
      cli.exitCode = await attachment.run();
    });
}
