import { BoxError } from "@berth/box-protocol";
import { joinPath, parseWorkspacePath } from "../fs/workspacePath.ts";
import { runGit, type GitContext } from "./runGit.ts";

/**
 * A revision a client names (a commit, `HEAD~1`, a branch). Never one that starts with `-`
 * (it could only be an option); it is also passed after `--end-of-options`.
 */
export function checkRef(ref: string): string {
  if (ref.startsWith("-") || ref.includes("\0") || ref.trim() !== ref || ref === "") {
    throw new BoxError("invalid_name", `${JSON.stringify(ref)} is not a revision name`);
  }
  return ref;
}

/** A branch name: not option-like, and exactly what `git check-ref-format --branch` accepts. */
export async function checkBranchName(context: GitContext, name: string): Promise<string> {
  checkRef(name);
  let normalized: string;
  try {
    normalized = (await runGit(context, ["check-ref-format", "--branch", name])).stdout.trim();
  } catch {
    throw new BoxError("invalid_name", `${JSON.stringify(name)} is not a valid branch name`);
  }
  // `@{-1}` and friends expand to another name: only literal names are accepted.
  if (normalized !== name) {
    throw new BoxError("invalid_name", `${JSON.stringify(name)} is not a literal branch name`);
  }
  return name;
}

/** Client paths for git: confined like every workspace path; "" becomes ".". */
export function gitPaths(paths: readonly string[]): string[] {
  return paths.map((path) => joinPath(parseWorkspacePath(path)) || ".");
}
