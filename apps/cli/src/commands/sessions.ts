import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { formatTime, table } from "../output.ts";

export function registerSessions(program: Command, cli: CliContext): void {
  const sessions = program
    .command("sessions")
    .description("List the workspace's sessions (each has its own box)")
    .action(async (_options: unknown, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const list = await client.sessions.list.query({ workspaceId });
      cli.output(command).result({ sessions: list }, () =>
        list.length === 0
          ? "No sessions yet: `berth sessions create --title <title>` makes one."
          : table(
              ["ID", "TITLE", "BACKEND", "CREATED"],
              list.map((s) => [s.id, s.title, s.backend, formatTime(s.createdAt)]),
            ),
      );
    });

  sessions
    .command("create")
    .description("Create a session; its box starts on first use")
    .option("--title <title>", "what the session is for", "berth CLI session")
    .action(async (options: { title: string }, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const session = await client.sessions.create.mutate({ workspaceId, title: options.title });
      cli.output(command).result({ session }, () => session.id);
    });
}
