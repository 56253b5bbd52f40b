import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { table } from "../output.ts";

export function registerMachines(program: Command, cli: CliContext): void {
  program
    .command("machines")
    .description(
      "List the workspace's machines: each session's box with its state, generations and holders",
    )
    .option(
      "-s, --session <id>",
      "one session's machines: its group box, then the workspace's enrolled machines",
    )
    .addHelpText(
      "after",
      "\nWithout --session: one group box per session (one query for the whole workspace).\n`instanceId` is null while a box is cold; enrolled machines are online or offline.",
    )
    .action(async (options: { session?: string }, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const machines = await client.machines.list.query({
        workspaceId,
        ...(options.session === undefined ? {} : { sessionId: options.session }),
      });
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
