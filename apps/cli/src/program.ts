import { Command } from "commander";
import packageJson from "../package.json" with { type: "json" };
import { registerArchives } from "./commands/archives.ts";
import { registerAuth } from "./commands/auth.ts";
import { registerExec } from "./commands/exec.ts";
import { registerFiles } from "./commands/files.ts";
import { registerGit } from "./commands/git.ts";
import { registerLeases } from "./commands/leases.ts";
import { registerMachines } from "./commands/machines.ts";
import { registerSessions } from "./commands/sessions.ts";
import { registerSwap } from "./commands/swap.ts";
import { registerTerminal } from "./commands/terminal.ts";
import { registerTransfer } from "./commands/transfer.ts";
import type { CliContext } from "./context.ts";
import { exitCodeHelp } from "./exitCodes.ts";

const environmentHelp = `Environment:
  BERTH_URL, BERTH_TOKEN, BERTH_WORKSPACE  override the stored credentials
  BERTH_SESSION                            the session, when -s is not given
  BERTH_CONFIG_DIR                         where credentials.json is kept
                                           (default: $XDG_CONFIG_HOME/berth, else ~/.config/berth)`;

/** Every command, registered once; errors propagate to the caller, which maps them. */
export function buildProgram(cli: CliContext): Command {
  const program = new Command("berth")
    .description(
      "Berth's command line: sessions and their boxes — files, git, exec, terminals, archives",
    )
    .version(packageJson.version)
    .option("--json", "print one JSON document on stdout (nothing else goes there), for scripts")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError()
    .addHelpText("after", `\n${exitCodeHelp()}\n\n${environmentHelp}`);
  registerAuth(program, cli);
  registerSessions(program, cli);
  registerMachines(program, cli);
  registerSwap(program, cli);
  registerFiles(program, cli);
  registerTransfer(program, cli);
  registerGit(program, cli);
  registerExec(program, cli);
  registerTerminal(program, cli);
  registerArchives(program, cli);
  registerLeases(program, cli);
  forEachCommand(program, (command) => {
    // Usage errors are thrown, not printed and exited on, so they are reported like any other.
    command.exitOverride().configureOutput({ outputError: () => undefined });
  });
  return program;
}

function forEachCommand(command: Command, visit: (command: Command) => void): void {
  visit(command);
  for (const sub of command.commands) forEachCommand(sub, visit);
}
