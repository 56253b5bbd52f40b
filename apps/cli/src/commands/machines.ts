import type { RouterOutputs } from "@berth/api";
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { formatBytes, table } from "../output.ts";
import { registerEnrolledMachines } from "./enrolledMachines.ts";

type Machine = RouterOutputs["machines"]["list"][number];

export function registerMachines(program: Command, cli: CliContext): void {
  const machines = program
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
      "\nWithout --session: one group box per session (one query for the whole workspace).\nYour own machines: `berth machines enroll` makes a one-time code to enroll one,\n`berth machines enrolled` lists them (online/offline/revoked), `rename`, `rotate` and `revoke` manage them.\n`instanceId` is null while a box is cold; enrolled machines are online or offline.\nISOLATION is the running box's isolation/network (bubblewrap/egress, say); `none` is a box\nrunning unisolated, as the server's own user on its network, replaced at its next drain once\nbubblewrap works there. LIMITS are the box's process, memory, CPU and disk limits.",
    )
    .action(async (options: { session?: string }, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const machines = await client.machines.list.query({
        workspaceId,
        ...(options.session === undefined ? {} : { sessionId: options.session }),
      });
      const output = cli.output(command);
      output.result({ machines }, () =>
        machines.length === 0
          ? "No sessions, so no boxes: `berth sessions create` makes one."
          : table(
              [
                "SESSION",
                "MACHINE",
                "BACKEND",
                "STATE",
                "ISOLATION",
                "LIMITS",
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
                m.backend ?? "-",
                m.state,
                isolationOf(m),
                limitsOf(m),
                m.instanceId ?? "-",
                m.leaseEpoch === null ? "-" : String(m.leaseEpoch),
                String(m.workspaceGeneration),
                m.archiveGeneration === null ? "-" : String(m.archiveGeneration),
                m.archiveComplete ? "complete" : "behind",
                holderSummary(m.holders),
              ]),
            ),
      );
      const unisolated = machines.filter((m) => m.confinement?.isolation === "none");
      if (unisolated.length > 0) {
        // A local one is replaced once bubblewrap works; a simulated cluster's never are.
        const why = unisolated.some((m) => m.backend === "kubernetes")
          ? " A kubernetes box here runs on a simulated cluster (kube-sim), whose pods are host processes."
          : " Berth replaces it at its next drain once bubblewrap works on the server.";
        output.note(
          `Warning: ${String(unisolated.length)} box${unisolated.length === 1 ? " runs" : "es run"} unisolated (ISOLATION none): its commands reach what the server's user can.${why}`,
        );
      }
    });
  registerEnrolledMachines(machines, cli);
}

/** "bubblewrap/egress"; "-" with no box; "unknown" for a box recorded before Berth said. */
function isolationOf(machine: Machine): string {
  const box = machine.confinement;
  if (box === null)
    return machine.kind === "group" && machine.instanceId !== null ? "unknown" : "-";
  return `${box.isolation}/${box.network}`;
}

/** "procs 256, mem 4 GiB, cpu 100, disk 20 GiB", only the limits the box has; "none" for none. */
function limitsOf(machine: Machine): string {
  const limits = machine.confinement?.limits;
  if (limits === undefined) return "-";
  const given = [
    limits.processes === null ? undefined : `procs ${String(limits.processes)}`,
    limits.memoryBytes === null ? undefined : `mem ${formatBytes(limits.memoryBytes)}`,
    limits.cpuWeight === null ? undefined : `cpu ${String(limits.cpuWeight)}`,
    limits.diskBytes === null ? undefined : `disk ${formatBytes(limits.diskBytes)}`,
  ].filter((part) => part !== undefined);
  return given.length === 0 ? "none" : given.join(", ");
}

/** "turn 1, viewer 2" — only the kinds that hold the box now. */
function holderSummary(holders: Readonly<Record<string, number>>): string {
  const held = Object.entries(holders).filter(([, count]) => count > 0);
  return held.length === 0
    ? "-"
    : held.map(([kind, count]) => `${kind} ${String(count)}`).join(", ");
}
