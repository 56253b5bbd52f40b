import type { RouterOutputs } from "@berth/api";
import type { Command } from "commander";
import type { CliContext, SessionConnection } from "../context.ts";
import { toCliError } from "../errors.ts";
import { formatBytes, formatTime, table, writeStdout } from "../output.ts";
import { withSession } from "./sessionOption.ts";

type FileInfo = RouterOutputs["fs"]["stat"]["entry"];

/** Ranged reads keep `cat` of a large file in bounded memory (whole reads stop at 8 MiB). */
const CAT_CHUNK_BYTES = 4 * 1024 * 1024;

export function registerFiles(program: Command, cli: CliContext): void {
  withSession(program.command("ls"))
    .description("List a folder of the session's workspace (default: its root)")
    .argument("[path]", "a path inside the workspace", "")
    .action(async (path: string, _options: unknown, command: Command) => {
      const session = await cli.session(command);
      const entries = await listOrStat(cli, session, path);
      cli.output(command).result({ path, entries }, () =>
        table(
          ["TYPE", "MODE", "SIZE", "MODIFIED", "NAME"],
          entries.map((entry) => [
            entry.type,
            (entry.mode & 0o7777).toString(8).padStart(4, "0"),
            entry.type === "dir" ? "-" : formatBytes(entry.size),
            formatTime(entry.mtimeMs),
            nameOf(entry),
          ]),
        ),
      );
    });

  withSession(program.command("cat"))
    .description("Print a file of the session's workspace")
    .argument("<path>", "a file inside the workspace")
    .option("--base64", "with --json: the content as base64 (for binary files)")
    .action(async (path: string, options: { base64?: boolean }, command: Command) => {
      const session = await cli.session(command);
      const out = cli.output(command);
      if (out.json) {
        const file = await session.client.fs.read.query({
          ...session.scope,
          path,
          encoding: options.base64 === true ? "base64" : "utf8",
        });
        out.result(file, () => "");
        return;
      }
      for (let offset = 0; ;) {
        const chunk = await session.client.fs.read.query({
          ...session.scope,
          path,
          offset,
          length: CAT_CHUNK_BYTES,
          encoding: "base64",
        });
        await writeStdout(Buffer.from(chunk.content, "base64"));
        offset += chunk.length;
        if (chunk.eof || chunk.length === 0) return;
      }
    });

  withSession(program.command("rm"))
    .description("Remove a file (or, with -r, a folder and everything in it)")
    .argument("<path>", "a path inside the workspace")
    .option("-r, --recursive", "remove a folder and its contents")
    .action(async (path: string, options: { recursive?: boolean }, command: Command) => {
      const session = await cli.session(command);
      const removed = await session.client.fs.remove.mutate({
        ...session.scope,
        path,
        recursive: options.recursive === true,
      });
      cli.output(command).result(removed, () => "");
    });
}

/** A folder's entries, or — like ls — the one entry when the path is a file. */
async function listOrStat(
  cli: CliContext,
  session: SessionConnection,
  path: string,
): Promise<FileInfo[]> {
  try {
    return (await session.client.fs.list.query({ ...session.scope, path })).entries;
  } catch (error) {
    if (toCliError(error, cli.errorScope).code !== "wrong_type") throw error;
    const { entry } = await session.client.fs.stat.query({ ...session.scope, path });
    return [entry];
  }
}

function nameOf(entry: FileInfo): string {
  if (entry.type === "dir") return `${entry.name}/`;
  if (entry.type === "symlink") return `${entry.name} -> ${entry.target ?? "?"}`;
  return entry.name;
}
