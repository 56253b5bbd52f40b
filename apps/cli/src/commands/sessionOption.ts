import type { Command } from "commander";

/** Adds the session choice every box-service command takes. */
export function withSession(command: Command): Command {
  return command.option(
    "-s, --session <id>",
    "the session (default: BERTH_SESSION, else the workspace's only session)",
  );
}
