import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { usageError } from "../errors.ts";
import { formatTime, table } from "../output.ts";
import { withSession } from "./sessionOption.ts";

export function registerLeases(program: Command, cli: CliContext): void {
  const leases = program.command("leases").description("The session's box lease");

  withSession(leases.command("timeline"))
    .description("The lease's events, oldest first (every accepted transition)")
    .option("--after <id>", "only events after this id (for paging: the last id shown)")
    .option("--limit <n>", "at most this many (1-200)", "50")
    .action(async (options: { after?: string; limit: string }, command: Command) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200)
        throw usageError(`--limit ${options.limit} is not 1-200.`, "Give 1 to 200.");
      if (options.after !== undefined && !/^\d{1,19}$/.test(options.after))
        throw usageError(
          `--after ${options.after} is not an event id.`,
          "Give an id the timeline showed.",
        );
      const session = await cli.session(command);
      const page = await session.client.leases.timeline.query({
        ...session.scope,
        limit,
        ...(options.after === undefined ? {} : { afterId: options.after }),
      });
      const out = cli.output(command);
      out.result(page, () =>
        page.events.length === 0
          ? "No lease events (the session has not had a box yet)."
          : table(
              ["ID", "AT", "TRANSITION", "FROM", "TO", "EPOCH", "ACTOR", "REASON"],
              page.events.map((e) => [
                e.id.toString(),
                formatTime(e.at),
                e.transition,
                e.fromState ?? "-",
                e.toState,
                String(e.epochAfter),
                e.actor,
                e.reason ?? "",
              ]),
            ),
      );
      if (page.nextAfterId !== null)
        out.note(`More: berth leases timeline --after ${page.nextAfterId.toString()}`);
    });
}
