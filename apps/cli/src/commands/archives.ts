import type { RouterOutputs } from "@berth/api";
import type { Command } from "commander";
import type { CliContext, SessionConnection } from "../context.ts";
import { CliError, usageError } from "../errors.ts";
import { withArchiveProgress } from "../archiveProgress.ts";
import { formatBytes, formatTime, table } from "../output.ts";
import { withSession } from "./sessionOption.ts";

interface RestoreOptions {
  readonly fresh?: boolean;
  readonly wake: boolean;
}

export function registerArchives(program: Command, cli: CliContext): void {
  const archives = program
    .command("archives")
    .description(
      "The session's workspace archives (verified revisions a lost box comes back from)",
    );

  withSession(archives.command("list"))
    .description("Archived revisions, newest first; * marks the one the next box restores")
    .action(async (_options: unknown, command: Command) => {
      const session = await cli.session(command);
      const list = await session.client.archives.list.query(session.scope);
      cli.output(command).result(list, () => {
        const state = `Archive ${list.archiveComplete ? "complete: it holds every admitted write" : "behind: writes since the last capture are not archived yet"}.`;
        if (list.archives.length === 0) return `No archives yet. ${state}`;
        const rows = list.archives.map((a) => [
          a.revision === list.selectedRevision ? "*" : "",
          a.revision,
          String(a.generation),
          formatBytes(a.sizeBytes),
          String(a.fileCount),
          a.status,
          formatTime(a.createdAt),
        ]);
        return `${table(["", "REVISION", "GEN", "SIZE", "FILES", "STATUS", "CREATED"], rows)}\n${state}`;
      });
    });

  archives
    .command("store")
    .description("Whether the archive store answers; to admins, where it is and what is wrong")
    .addHelpText(
      "after",
      "\nExits 9 when the store does not answer: captures and restores fail until it is back.",
    )
    .action(async (_options: unknown, command: Command) => {
      const { client } = await cli.connect();
      const store = (await client.status.get.query()).archiveStore;
      if (store === null)
        throw new CliError({
          reason: "notFound",
          code: "no_archive_store",
          message: "This Berth keeps no archives.",
          hint: "Its server runs without box services: see the README's Archive stores.",
        });
      cli.output(command).result(store, () => describeStore(store).join("\n"));
      if (!store.reachable)
        throw new CliError({
          reason: "storeUnreachable",
          code: "archive_store_unreachable",
          message: `The archive store does not answer${store.problem === undefined ? "." : `: ${store.problem}`}`,
          hint: "Captures and restores fail until it is back; a workspace admin sees where it is and why.",
        });
    });

  withSession(archives.command("capture"))
    .description("Capture the workspace now and publish it as the current archive")
    .addHelpText(
      "after",
      "\nWakes a cold box first. Progress is drawn on stderr when it is a terminal. A capture that\nkeeps meeting new writes is refused (exit 7): run it again when the box is quieter.",
    )
    .action(async (_options: unknown, command: Command) => {
      const session = await cli.session(command);
      const captured = await withArchiveProgress(session, "capture", () =>
        session.client.archives.capture.mutate(session.scope),
      );
      cli
        .output(command)
        .result(
          captured,
          () =>
            `Captured ${captured.revision} (generation ${String(captured.generation)}); the archive is ${captured.archiveComplete ? "complete" : "behind (writes landed meanwhile)"}.`,
        );
    });

  withSession(archives.command("restore"))
    .description("Admin: bring the session's box back at an archived revision (or, --fresh, empty)")
    .argument("[revision]", "a revision from `berth archives list` (a unique prefix will do)")
    .option("--fresh", "start a blocked box again from an empty workspace instead")
    .option("--no-wake", "only select the revision; the next call on the box restores it")
    .addHelpText(
      "after",
      [
        "",
        "A live box is captured first (its workspace becomes an archive revision of its own, so",
        "going back loses nothing) and stopped; calls that arrive meanwhile wait for the restore.",
        "The restore is refused if the box changed since this command looked at it. Waking restores",
        "the archive, checks its sha256 before the box starts, and verifies the workspace's revision",
        "before the box serves anything.",
      ].join("\n"),
    )
    .action(async (revision: string | undefined, options: RestoreOptions, command: Command) => {
      if ((revision === undefined) === (options.fresh !== true))
        throw usageError(
          "Name one revision, or pass --fresh.",
          "`berth archives list` shows the revisions.",
        );
      const session = await cli.session(command);
      const out = cli.output(command);
      const selected =
        options.fresh === true
          ? await session.client.recovery.startFresh.mutate(session.scope)
          : await restoreRevision(session, out, await fullRevision(session, revision ?? ""));
      if (options.wake) {
        out.note(
          options.fresh === true
            ? "Waking the box with an empty workspace…"
            : `Waking the box: restoring ${selected.selectedRevision ?? ""} and verifying it…`,
        );
        await withArchiveProgress(session, "restore", () =>
          session.client.fs.stat.query({ ...session.scope, path: "" }),
        );
      }
      const lease = await session.client.leases.get.query(session.scope);
      out.result({ selected, lease }, () =>
        options.wake
          ? `Restored: the box serves ${lease?.selectedRevision ?? "an empty workspace"} (${lease?.restoreStatus ?? "?"}).`
          : `Selected ${selected.selectedRevision ?? "an empty workspace"}; the next call on the box restores it.`,
      );
    });
}

type ArchiveStoreView = NonNullable<RouterOutputs["status"]["get"]["archiveStore"]>;

const storeNames: Record<ArchiveStoreView["kind"], string> = {
  filesystem: "folder",
  s3: "S3 bucket",
};

/** The store's lines: its kind and health, then (told to admins) where it is. */
function describeStore(store: ArchiveStoreView): string[] {
  const lines = [
    `Archive store: ${storeNames[store.kind]}, ${store.reachable ? "reachable" : "unreachable"}.`,
  ];
  if (store.location !== undefined)
    lines.push(
      `Archives at ${store.location}${store.endpoint === undefined ? "" : ` (${store.endpoint})`}.`,
    );
  return lines;
}

/**
 * Selects `revision`, from the epoch this command saw (a box that moved meanwhile is refused,
 * not restored on a guess). A live box is captured first: its progress is drawn as a capture's.
 */
async function restoreRevision(
  session: SessionConnection,
  out: ReturnType<CliContext["output"]>,
  revision: string,
) {
  const lease = await session.client.leases.get.query(session.scope);
  const asked = {
    ...session.scope,
    revision,
    ...(lease === null ? {} : { expectedEpoch: lease.epoch }),
  };
  if (lease === null || lease.instanceId === null)
    return session.client.recovery.restoreRevision.mutate(asked);
  out.note("The box is live: capturing its workspace as a revision of its own, then stopping it…");
  return withArchiveProgress(session, "capture", () =>
    session.client.recovery.restoreRevision.mutate(asked),
  );
}

/** A revision prefix, resolved against the session's archives. */
async function fullRevision(session: SessionConnection, prefix: string): Promise<string> {
  if (/^[0-9a-f]{64}$/.test(prefix)) return prefix;
  if (!/^[0-9a-f]{4,63}$/.test(prefix))
    throw usageError(`${prefix} is not a revision.`, "Copy one from `berth archives list`.");
  const { archives } = await session.client.archives.list.query(session.scope);
  const matches = [...new Set(archives.map((a) => a.revision).filter((r) => r.startsWith(prefix)))];
  const [only, another] = matches;
  if (only === undefined)
    throw new CliError({
      reason: "notFound",
      code: "revision_not_found",
      message: `No archived revision starts with ${prefix}.`,
      hint: "`berth archives list` shows the revisions.",
    });
  if (another !== undefined)
    throw usageError(`${prefix} matches ${String(matches.length)} revisions.`, "Give more digits.");
  return only;
}
