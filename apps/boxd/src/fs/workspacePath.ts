import { BoxError, pathLimitProblem, pathNames } from "@berth/box-protocol";
import { isTempName } from "./tempNames.ts";

/**
 * A client's workspace path as its components. Refused before touching the disk: NUL bytes,
 * a path past PATH_LIMITS (the request schemas check those too; this is the second line, and
 * the only one for a path that arrives in a query), absolute paths and any `..` (so a path can
 * only ever name something below the root; the symlinks on the way are checked by
 * WorkspaceRoot.resolve). "", "." and "./" name the root; empty and "." components are
 * dropped. Newlines and any other Unicode are ordinary names.
 */
export function parseWorkspacePath(input: string): string[] {
  if (input.includes("\0")) throw new BoxError("invalid_name", "paths must not contain NUL bytes");
  const problem = pathLimitProblem(input);
  // Not echoed: the path may be kilobytes long.
  if (problem !== undefined) throw new BoxError("invalid_name", `the path ${problem}`);
  if (input.startsWith("/")) {
    throw new BoxError(
      "outside_workspace",
      `${input}: absolute paths are refused; give a path relative to the workspace root`,
    );
  }
  const components = pathNames(input);
  for (const part of components) {
    if (part === "..") {
      throw new BoxError("outside_workspace", `${input}: ".." is refused in workspace paths`);
    }
    if (isTempName(part)) {
      throw new BoxError("invalid_name", `${input}: names starting .berth-tmp- are reserved`);
    }
  }
  return components;
}

export function joinPath(components: readonly string[]): string {
  return components.join("/");
}
