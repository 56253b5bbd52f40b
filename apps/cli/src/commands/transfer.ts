import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { downloadFile, uploadFile } from "@berth/client";
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { CliError, usageError } from "../errors.ts";
import { formatBytes, writeStdout } from "../output.ts";
import { progressDisplay } from "../progress.ts";
import { withSession } from "./sessionOption.ts";

interface PutOptions {
  readonly parents?: boolean;
  readonly mode?: string;
  readonly overwrite: boolean;
}

export function registerTransfer(program: Command, cli: CliContext): void {
  // Two arguments plus options and the command would be four parameters: the handlers reach
  // their command (for --json and -s) through these constants instead.
  const put: Command = withSession(program.command("put"));
  put
    .description("Upload a local file (or stdin, as `-`) to the session's workspace, streamed")
    .argument("<local>", "a local file, or - for stdin")
    .argument("<remote>", "where it goes, inside the workspace")
    .option("-p, --parents", "create missing folders on the way")
    .option("--mode <octal>", "permission bits, e.g. 755")
    .option("--no-overwrite", "fail if the remote file exists")
    .action(async (local: string, remote: string, options: PutOptions) => {
      const command = put;
      const mode = options.mode === undefined ? undefined : parseMode(options.mode);
      const size = local === "-" ? undefined : await localSize(local);
      const session = await cli.session(command);
      const progress = progressDisplay(`put ${remote}`);
      try {
        const uploaded = await uploadFile(session.options, {
          ...session.scope,
          path: remote,
          body:
            local === "-"
              ? (process.stdin as AsyncIterable<Uint8Array>)
              : (createReadStream(local) as AsyncIterable<Uint8Array>),
          ...(size === undefined ? {} : { size }),
          ...(mode === undefined ? {} : { mode }),
          ...(options.overwrite ? {} : { expectedVersion: null }),
          createParents: options.parents === true,
          onProgress: (p) => {
            progress.update(p);
          },
        });
        progress.stop();
        cli
          .output(command)
          .result(uploaded, () => `${uploaded.path}: ${formatBytes(uploaded.size)} uploaded`);
      } finally {
        progress.stop();
      }
    });

  const get: Command = withSession(program.command("get"));
  get
    .description("Download a file of the session's workspace to a local file or stdout, streamed")
    .argument("<remote>", "a file inside the workspace")
    .argument("[local]", "a local file or folder; - or nothing: stdout")
    .action(async (remote: string, local: string | undefined) => {
      const command = get;
      const out = cli.output(command);
      const toStdout = local === undefined || local === "-";
      if (toStdout && out.json)
        throw usageError(
          "--json prints a document on stdout, so the file cannot go there too.",
          "Name a local file: `berth get <remote> <local> --json`.",
        );
      const session = await cli.session(command);
      const progress = progressDisplay(`get ${remote}`);
      try {
        const file = await downloadFile(session.options, {
          ...session.scope,
          path: remote,
          onProgress: (p) => {
            progress.update(p);
          },
        });
        if (toStdout) {
          for await (const chunk of file.body) await writeStdout(chunk);
          return;
        }
        const target = await localTarget(local, remote);
        // A partial file under the real name would look complete: rename only when it is.
        const partial = `${target}.berth-partial`;
        try {
          await pipeline(file.body, createWriteStream(partial));
          await rename(partial, target);
        } catch (error) {
          await rm(partial, { force: true });
          throw error;
        }
        progress.stop();
        out.result(
          { path: remote, local: target, size: file.size },
          () => `${target}: ${formatBytes(file.size)} downloaded`,
        );
      } finally {
        progress.stop();
      }
    });
}

function parseMode(text: string): number {
  if (!/^[0-7]{1,4}$/.test(text))
    throw usageError(
      `--mode ${text} is not an octal mode.`,
      "Give permission bits such as 644 or 755.",
    );
  return Number.parseInt(text, 8);
}

async function localSize(path: string): Promise<number> {
  const stats = await stat(path).catch((error: unknown) => {
    throw new CliError({
      reason: "notFound",
      code: "local_not_found",
      message: `No local file ${path}.`,
      hint: "Check the path (use - to upload stdin).",
      cause: error,
    });
  });
  if (!stats.isFile())
    throw usageError(`${path} is not a regular file.`, "Upload one file at a time.");
  return stats.size;
}

/** A local folder receives the file under its remote name. */
async function localTarget(local: string | undefined, remote: string): Promise<string> {
  if (local === undefined) throw usageError("No local target.", "Name a local file.");
  const stats = await stat(local).catch(() => undefined);
  return stats?.isDirectory() === true ? join(local, basename(remote)) : local;
}
