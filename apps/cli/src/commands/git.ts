import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { usageError } from "../errors.ts";
import { table } from "../output.ts";
import { withSession } from "./sessionOption.ts";

interface CommitOptions {
  readonly message: string;
  readonly all?: boolean;
  readonly allowEmpty?: boolean;
  readonly author?: string;
}

export function registerGit(program: Command, cli: CliContext): void {
  const git = program
    .command("git")
    .description("The git repository in the session's workspace (boxd runs git; no shell)");

  withSession(git.command("status"))
    .description("The branch and what changed")
    .action(async (_options: unknown, command: Command) => {
      const session = await cli.session(command);
      const status = await session.client.git.status.query(session.scope);
      cli.output(command).result(status, () => {
        const { branch } = status;
        const head = `On ${branch.head ?? "a detached HEAD"}${branch.oid === null ? " (no commits yet)" : ` at ${branch.oid.slice(0, 12)}`}`;
        if (status.entries.length === 0) return `${head}\nNothing changed.`;
        return `${head}\n${table(
          ["XY", "KIND", "PATH"],
          status.entries.map((e) => [
            `${e.index}${e.worktree}`,
            e.kind,
            e.origPath === undefined ? e.path : `${e.origPath} -> ${e.path}`,
          ]),
        )}`;
      });
    });

  withSession(git.command("log"))
    .description("Commits, newest first")
    .argument("[ref]", "where to start (default: HEAD)")
    .option("-n, --max-count <n>", "how many", "20")
    .action(async (ref: string | undefined, options: { maxCount: string }, command: Command) => {
      const maxCount = Number(options.maxCount);
      if (!Number.isInteger(maxCount) || maxCount < 1 || maxCount > 1000)
        throw usageError(`-n ${options.maxCount} is not a count.`, "Give 1 to 1000.");
      const session = await cli.session(command);
      const log = await session.client.git.log.query({
        ...session.scope,
        maxCount,
        ...(ref === undefined ? {} : { ref }),
      });
      cli
        .output(command)
        .result(log, () =>
          log.commits
            .map(
              (c) =>
                `${c.oid.slice(0, 12)} ${c.authoredAt.slice(0, 10)} ${c.authorName}: ${c.subject}`,
            )
            .join("\n"),
        );
    });

  withSession(git.command("diff"))
    .description("Changes in the work tree (or, with --staged, in the index)")
    .argument("[paths...]", "only these paths")
    .option("--staged", "the index against HEAD")
    .option("--ref <ref>", "compare against this ref")
    .action(
      async (paths: string[], options: { staged?: boolean; ref?: string }, command: Command) => {
        const session = await cli.session(command);
        const diff = await session.client.git.diff.query({
          ...session.scope,
          paths,
          staged: options.staged === true,
          ...(options.ref === undefined ? {} : { ref: options.ref }),
        });
        const out = cli.output(command);
        out.result(diff, () => diff.text);
        if (diff.truncated) out.note("(the diff was cut short: name paths to see the rest)");
      },
    );

  withSession(git.command("add"))
    .description("Stage paths for the next commit")
    .argument("<paths...>", "files or folders")
    .action(async (paths: string[], _options: unknown, command: Command) => {
      const session = await cli.session(command);
      await session.client.git.add.mutate({ ...session.scope, paths });
      cli.output(command).result({ added: paths }, () => "");
    });

  withSession(git.command("commit"))
    .description("Commit what is staged")
    .requiredOption("-m, --message <message>", "the commit message")
    .option("-a, --all", "first stage every change to tracked files (not untracked ones)")
    .option("--allow-empty", "commit even when nothing changed")
    .option("--author <author>", 'the author, as "Name <email>"')
    .action(async (options: CommitOptions, command: Command) => {
      const author = options.author === undefined ? undefined : parseAuthor(options.author);
      const session = await cli.session(command);
      if (options.all === true) {
        const status = await session.client.git.status.query(session.scope);
        const tracked = status.entries
          .filter((e) => e.kind === "changed" || e.kind === "renamed")
          .flatMap((e) => (e.origPath === undefined ? [e.path] : [e.origPath, e.path]));
        if (tracked.length > 0)
          await session.client.git.add.mutate({ ...session.scope, paths: tracked });
      }
      const commit = await session.client.git.commit.mutate({
        ...session.scope,
        message: options.message,
        allowEmpty: options.allowEmpty === true,
        ...(author === undefined ? {} : { author }),
      });
      cli.output(command).result(commit, () => commit.oid);
    });
}

function parseAuthor(text: string): { name: string; email: string } {
  const match = /^\s*(.+?)\s*<([^<>]+)>\s*$/.exec(text);
  if (match?.[1] === undefined || match[2] === undefined)
    throw usageError(
      `--author ${text} is not "Name <email>".`,
      'Write it as --author "Ada <ada@example.com>".',
    );
  return { name: match[1], email: match[2] };
}
