import { open, readlink } from "node:fs/promises";
import { joinPath, parseWorkspacePath } from "./workspacePath.ts";
import { fsError } from "./fsErrors.ts";
import { at, DIRECTORY_FLAGS, type WorkspaceRoot } from "./workspaceRoot.ts";

export interface ConfinedFolder {
  /** Absolute real path, checked to be inside the workspace. */
  readonly realPath: string;
  /** Relative to the root, as the client gave it (normalized). */
  readonly path: string;
}

/**
 * A folder for a process to start in (exec, terminals). Resolved like every path, then handed
 * over as its real path: a process cannot be started in an fd, and once it runs it can go
 * anywhere its user may anyway — the check is that the parameter names a folder inside.
 */
export async function confinedFolder(root: WorkspaceRoot, input: string): Promise<ConfinedFolder> {
  const components = parseWorkspacePath(input);
  const path = joinPath(components);
  const resolved = await root.resolve(components, { followLast: true, shownPath: path });
  try {
    const folder =
      resolved.name === undefined
        ? resolved.directory
        : await open(at(resolved.directory, resolved.name), DIRECTORY_FLAGS);
    try {
      await root.assertInside(folder, path);
      return { realPath: await readlink(at(folder)), path };
    } finally {
      if (folder !== resolved.directory) await folder.close();
    }
  } catch (error) {
    throw fsError(error, path);
  } finally {
    await resolved.directory.close();
  }
}
