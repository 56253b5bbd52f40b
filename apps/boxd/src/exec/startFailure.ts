import { stat } from "node:fs/promises";
import { delimiter, resolve } from "node:path";
import { BoxError } from "@berth/box-protocol";
import { errnoOf } from "../fs/fsErrors.ts";

/** What a program was asked to start as: the name, where, and the PATH it was looked up on. */
export interface StartAttempt {
  readonly program: string;
  readonly cwd: string;
  /** The child's PATH (its own env, else boxd's); a program with a "/" is not looked up. */
  readonly searchPath: string | undefined;
}

/**
 * Why a program did not start, told truthfully as a typed error. The kernel's answer alone is
 * ambiguous (EACCES is a folder or a file without the x bit; ENOENT a missing file or a
 * missing #! interpreter), so the file it names is looked at once the start has failed:
 * nothing is paid on a start that works.
 */
export async function startFailure(error: unknown, attempt: StartAttempt): Promise<BoxError> {
  const { program } = attempt;
  const code = errnoOf(error);
  // spawn's own refusals, thrown before any process exists (the schema refuses them first).
  if (code === "ERR_INVALID_ARG_VALUE" || code === "ERR_INVALID_ARG_TYPE")
    return new BoxError("invalid_request", `${program}: ${messageOf(error)}`);
  switch (code) {
    case "ENOENT":
    case "EACCES":
    case "EISDIR":
      return diagnose(attempt, code);
    case "ENOTDIR":
      return new BoxError("wrong_type", `${program}: a folder in the program's path is a file`);
    case "ENOEXEC":
      return new BoxError(
        "invalid_request",
        `${program}: not a program this box can run (neither a binary for it nor a #! script)`,
      );
    case "E2BIG":
      return new BoxError(
        "too_large",
        `${program}: the arguments and environment together pass the kernel's limit (ARG_MAX)`,
      );
    case "ENAMETOOLONG":
      return new BoxError("invalid_name", `${program}: the program's name or path is too long`);
    case undefined:
    default:
      return new BoxError("internal", `${program}: ${messageOf(error)}`, { cause: error });
  }
}

/** Looks at the file the kernel refused, or at the first one PATH offers for a bare name. */
async function diagnose(attempt: StartAttempt, code: string): Promise<BoxError> {
  const { program, cwd } = attempt;
  const folder = await kindOf(cwd);
  if (folder !== "dir")
    return new BoxError("not_found", `the working folder of ${program} no longer exists`);
  const candidates = program.includes("/")
    ? [resolve(cwd, program)]
    : (attempt.searchPath ?? "").split(delimiter).map((dir) => resolve(cwd, dir, program));
  for (const candidate of candidates) {
    const kind = await kindOf(candidate);
    const shown = candidate === resolve(cwd, program) ? program : `${program} (${candidate})`;
    if (kind === "dir")
      return new BoxError("invalid_request", `the program ${shown} is a directory, not a program`);
    if (kind === "file" && code === "EACCES")
      return new BoxError("permission_denied", `the program ${shown} is not executable`);
    // A file the kernel could not find: what it looked for is the #! line's interpreter.
    if (kind === "file" && code === "ENOENT")
      return new BoxError(
        "not_found",
        `the program ${shown} names an interpreter (its #! line) that is not installed`,
      );
  }
  return program.includes("/")
    ? new BoxError("not_found", `the program ${program} does not exist`)
    : new BoxError("not_found", `${program}: command not found (looked for on PATH)`);
}

async function kindOf(path: string): Promise<"dir" | "file" | "other" | undefined> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? "dir" : stats.isFile() ? "file" : "other";
  } catch {
    return undefined;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
