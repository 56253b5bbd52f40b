import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { BoxError } from "@berth/box-protocol";
import { commandLine, type CommandUser } from "../commandUser.ts";
import { GIT_TIMEOUT_MS } from "../limits.ts";

export interface GitContext {
  /** The workspace's real path: git runs there and never looks above it for a repository. */
  readonly root: string;
  /** boxd's child environment (no BOXD_* variables). */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Who git (and its hooks) runs as (commandUser.ts); undefined: as boxd. */
  readonly user: CommandUser | undefined;
}

export interface GitRun {
  readonly stdout: string;
  readonly truncated: boolean;
}

export interface RunGitOptions {
  /** Output past this is cut (and flagged) instead of failing the call. */
  readonly maxBytes?: number;
}

/**
 * Runs the real git with an argv array (execFile: no shell ever parses it), configured so it
 * can never stop to ask anything: no system config, no pager, no editor, no credential or
 * terminal prompts, literal pathspecs (`*` and `:(magic)` in a client's path are just
 * characters), and no discovering a repository above the workspace. Callers put `--` before
 * every path and `--end-of-options` before every ref, so no client string is read as an option.
 */
export async function runGit(
  context: GitContext,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitRun> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const argv = [
    "--no-pager",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotePath=false",
    "-c",
    `safe.directory=${context.root}`,
    ...args,
  ];
  const [file, ...fileArgs] = commandLine(context.user, ["git", ...argv]);
  return new Promise((resolve, reject) => {
    execFile(
      file,
      fileArgs,
      {
        cwd: context.root,
        env: gitEnv(context),
        encoding: "utf8",
        maxBuffer: maxBytes,
        timeout: GIT_TIMEOUT_MS,
        killSignal: "SIGKILL",
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ stdout, truncated: false });
          return;
        }
        if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
          resolve({ stdout, truncated: true });
          return;
        }
        if (error.killed) {
          reject(
            new BoxError("timeout", `git ${args[0] ?? ""} ran longer than ${GIT_TIMEOUT_MS} ms`),
          );
          return;
        }
        const message = stderr.trim() || error.message;
        reject(new BoxError("git_failed", `git ${args[0] ?? ""}: ${message}`));
      },
    );
  });
}

function gitEnv(context: GitContext): Record<string, string> {
  return {
    ...context.baseEnv,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_EDITOR: "true",
    EDITOR: "true",
    VISUAL: "true",
    GIT_ASKPASS: "true",
    SSH_ASKPASS: "true",
    GCM_INTERACTIVE: "never",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_CEILING_DIRECTORIES: dirname(context.root),
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
  };
}
