import { Buffer } from "node:buffer";
import { BoxError } from "@berth/box-protocol";
import { isTempName } from "./tempNames.ts";

/** Linux's NAME_MAX: one path component, in bytes. */
const MAX_NAME_BYTES = 255;

/**
 * A client's workspace path as its components. Refused before touching the disk: NUL bytes,
 * absolute paths and any `..` (so a path can only ever name something below the root; the
 * symlinks on the way are checked by WorkspaceRoot.resolve). "", "." and "./" name the root;
 * empty and "." components are dropped. Newlines and any other Unicode are ordinary names.
 */
export function parseWorkspacePath(input: string): string[] {
  if (input.includes("\0")) throw new BoxError("invalid_name", "paths must not contain NUL bytes");
  if (input.startsWith("/")) {
    throw new BoxError(
      "outside_workspace",
      `${input}: absolute paths are refused; give a path relative to the workspace root`,
    );
  }
  const components = input.split("/").filter((part) => part !== "" && part !== ".");
  for (const part of components) {
    if (part === "..") {
      throw new BoxError("outside_workspace", `${input}: ".." is refused in workspace paths`);
    }
    if (Buffer.byteLength(part, "utf8") > MAX_NAME_BYTES) {
      throw new BoxError("invalid_name", `${input}: a name is longer than 255 bytes`);
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
