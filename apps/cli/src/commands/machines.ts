import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { table } from "../output.ts";

export function registerMachines(program: Command, cli: CliContext): void {
  program
    .command("machines")
    .description(
      "List the workspace's machines: each session's box with its state, generations and holders",
    )
    .addHelpText(
      "after",
      "\nEnrolled (self-hosted) machines are not built yet: today every session has one group box\n(machines.list, one query for the whole workspace). `instanceId` is null while the box is cold.",
    )
    .action(async (_options: unknown, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const machines = await client.machines.list.query({ workspaceId });
      cli.output(command).result({ machines }, () =>
        machines.length === 0
          ? "No sessions, so no boxes: `berth sessions create` makes one."
          : table(
              [
                "SESSION",
                "MACHINE",
                "STATE",
                "INSTANCE",
                "EPOCH",
                "WS GEN",
                "ARCHIVE GEN",
                "ARCHIVED",
                "HOLDERS",
              ],
              machines.map((m) => [
                m.sessionId,
                m.name,
                m.state,
                m.instanceId ?? "-",
                m.leaseEpoch === null ? "-" : String(m.leaseEpoch),
                String(m.workspaceGeneration),
                m.archiveGeneration === null ? "-" : String(m.archiveGeneration),
                m.archiveComplete ? "complete" : "behind",
                holderSummary(m.holders),
              ]),
            ),
      );
    });
}

/** "turn 1, viewer 2" — only the kinds that hold the box now. */
function holderSummary(holders: Readonly<Record<string, number>>): string {
  const held = Object.entries(holders).filter(([, count]) => count > 0);
  return held.length === 0
    ? "-"
    : held.map(([kind, count]) => `${kind} ${String(count)}`).join(", ");
}
