import type { Command } from "commander";
import type { CliContext } from "../context.ts";

/**
 * `berth swap SESSION TARGET` (admins, issue 41): moves a session's work to an enrolled machine
 * (its id, `berth machines enrolled`) or back to its group box (`group`). It reads the session's
 * pointer and swaps from that epoch: a swap someone else made in between is refused (CONFLICT),
 * never overwritten.
 */
export function registerSwap(program: Command, cli: CliContext): void {
  program
    .command("swap")
    .description("Move a session's work to an enrolled machine, or back to its group box (admins)")
    .argument("<session>", "the session's id (`berth sessions`)")
    .argument(
      "<target>",
      "a machine's id (`berth machines enrolled`), or `group` for the group box",
    )
    .addHelpText(
      "after",
      "\nA machine must be online. Swapping back to `group` wakes the group box first. Writes after\nthe swap land on the new target; each write's answer names where it landed (routedTo).",
    )
    .action(async function (this: Command) {
      const [sessionId, target] = this.processedArgs as [string, string];
      const { client, workspaceId } = await cli.connect();
      const session = await client.sessions.get.query({ workspaceId, sessionId });
      const swapped = await client.admin.swap.mutate({
        workspaceId,
        sessionId,
        target,
        expectedEpoch: session.activeEpoch,
      });
      cli
        .output(this)
        .result(
          { swap: { sessionId, ...swapped } },
          () =>
            `${sessionId} now runs on ${swapped.activeSandboxId === null ? "its group box" : `machine ${swapped.activeSandboxId}`} (epoch ${String(swapped.activeEpoch)})${terminalsNote(swapped.terminals)}`,
        );
    });
}

/** The session's terminals the swap ended on the group box, when there were any. */
function terminalsNote(terminals: { ended: number; leftOpen: number }): string {
  const notes = [
    terminals.ended > 0 ? `${String(terminals.ended)} terminal(s) on the group box ended` : "",
    terminals.leftOpen > 0
      ? `${String(terminals.leftOpen)} left open (the group box did not answer)`
      : "",
  ].filter((note) => note !== "");
  return notes.length === 0 ? "" : `; ${notes.join(", ")}`;
}
