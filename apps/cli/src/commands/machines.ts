import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { table } from "../output.ts";

export function registerMachines(program: Command, cli: CliContext): void {
  program
    .command("machines")
    .description(
      "List each session's box: lease liveness, instance, workspace and archive generations",
    )
    .addHelpText(
      "after",
      "\nEnrolled (self-hosted) machines are not built yet: today every session has one group box, listed here\nfrom its lease (leases.get) and session. `instanceId` is null while the box is cold.",
    )
    .action(async (_options: unknown, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const sessions = await client.sessions.list.query({ workspaceId });
      const machines = await Promise.all(
        sessions.map(async (session) => {
          const lease = await client.leases.get.query({ workspaceId, sessionId: session.id });
          return {
            sessionId: session.id,
            title: session.title,
            kind: "group_box" as const,
            backend: session.backend,
            liveness: lease?.liveness ?? null,
            epoch: lease?.epoch ?? null,
            instanceId: lease?.instanceId ?? null,
            workspaceGeneration: lease?.workspaceGeneration ?? null,
            archiveGeneration: lease?.archiveGeneration ?? null,
            archiveComplete: lease?.archiveComplete ?? null,
          };
        }),
      );
      cli.output(command).result({ machines }, () =>
        machines.length === 0
          ? "No sessions, so no boxes: `berth sessions create` makes one."
          : table(
              ["SESSION", "TITLE", "LIVENESS", "INSTANCE", "WS GEN", "ARCHIVE GEN", "ARCHIVED"],
              machines.map((m) => [
                m.sessionId,
                m.title,
                m.liveness ?? "never started",
                m.instanceId ?? "-",
                m.workspaceGeneration === null ? "-" : String(m.workspaceGeneration),
                m.archiveGeneration === null ? "-" : String(m.archiveGeneration),
                m.archiveComplete === null ? "-" : m.archiveComplete ? "complete" : "behind",
              ]),
            ),
      );
    });
}
