import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { usageError } from "../errors.ts";
import { formatTime, table } from "../output.ts";

/**
 * `berth machines enroll | enrolled | rename | rotate | revoke`: the workspace's own machines (issue 39),
 * which join with a one-time code and run Berth's agent (`node boxd.mjs agent …`).
 */
export function registerEnrolledMachines(machines: Command, cli: CliContext): void {
  machines
    .command("enroll")
    .description("Make a one-time code that enrolls one of your machines (admins)")
    .option("--ttl <minutes>", "how long the code is good for (1-60)", "10")
    .addHelpText(
      "after",
      "\nOn the machine (Linux, Node 20+), fetch the agent from the printed URL and run the printed\ncommand, with <DIR> the folder its boxes may use. The code works once, until it expires.",
    )
    .action(async (options: { ttl: string }, command: Command) => {
      const ttlMinutes = Number(options.ttl);
      if (!Number.isInteger(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > 60)
        throw usageError(`--ttl ${options.ttl} is not 1-60 minutes.`, "Give 1 to 60.");
      const { client, workspaceId } = await cli.connect();
      const enrollment = await client.machines.enroll.mutate({ workspaceId, ttlMinutes });
      cli
        .output(command)
        .result({ enrollment }, () =>
          [
            `Code:    ${enrollment.code}`,
            `Expires: ${formatTime(enrollment.expiresAt)} (single use)`,
            `Agent:   ${enrollment.bundleUrl}`,
            "On the machine, in the folder holding boxd.mjs:",
            `  ${enrollment.command}`,
          ].join("\n"),
        );
    });

  machines
    .command("enrolled")
    .description("List the machines enrolled in the workspace: online, offline or revoked")
    .action(async (_options: unknown, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const enrolled = await client.machines.listWorkspace.query({ workspaceId });
      cli.output(command).result({ machines: enrolled }, () =>
        enrolled.length === 0
          ? "No enrolled machines: `berth machines enroll` makes a code to enroll one."
          : table(
              ["ID", "NAME", "STATE", "OS/ARCH", "DISPLAY", "BOXD", "LAST SEEN", "ENROLLED"],
              enrolled.map((m) => [
                m.id,
                m.name,
                m.state,
                `${m.os}/${m.arch}`,
                m.hasDisplay ? "yes" : "no",
                m.boxdVersion === "" ? "-" : m.boxdVersion,
                m.lastSeenAt === null ? "never" : formatTime(m.lastSeenAt),
                formatTime(m.createdAt),
              ]),
            ),
      );
    });

  machines
    .command("rename")
    .description("Rename an enrolled machine (admins); names are unique in the workspace")
    .argument("<id>", "the machine's id (`berth machines enrolled`)")
    .argument("<name>", "its new name")
    // Two arguments, then commander's options and command: read them off the command itself.
    .action(async function (this: Command) {
      const [machineId, name] = this.processedArgs as [string, string];
      const { client, workspaceId } = await cli.connect();
      const renamed = await client.machines.rename.mutate({ workspaceId, machineId, name });
      cli.output(this).result({ machine: renamed }, () => `${renamed.machineId} ${renamed.name}`);
    });

  machines
    .command("rotate")
    .description("Replace an enrolled machine's credential (admins): its agent swaps it itself")
    .argument("<id>", "the machine's id (`berth machines enrolled`)")
    .addHelpText(
      "after",
      "\nThe agent is told now if it is connected, else when it next connects; it saves the new\ncredential and reconnects with it. The old one works until then, and never after.",
    )
    .action(async (machineId: string, _options: unknown, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const rotation = await client.machines.rotateCredential.mutate({ workspaceId, machineId });
      cli
        .output(command)
        .result({ rotation }, () =>
          rotation.delivery === "sent"
            ? `${rotation.machineId}: its agent was told to rotate its credential now`
            : `${rotation.machineId}: its agent will rotate its credential when it next connects`,
        );
    });

  machines
    .command("revoke")
    .description("Shut an enrolled machine out for good: its credential is refused from now on")
    .argument("<id>", "the machine's id (`berth machines enrolled`)")
    .action(async (machineId: string, _options: unknown, command: Command) => {
      const { client, workspaceId } = await cli.connect();
      const revoked = await client.machines.revoke.mutate({ workspaceId, machineId });
      cli
        .output(command)
        .result(
          { machine: revoked },
          () => `${revoked.machineId} revoked at ${formatTime(revoked.revokedAt)}`,
        );
    });
}
