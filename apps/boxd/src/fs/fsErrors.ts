import { BoxError } from "@berth/box-protocol";

/** The errno of a Node fs error, if it has one. */
export function errnoOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/** A filesystem failure on `path` as the BoxError a client can act on. */
export function fsError(error: unknown, path: string): BoxError {
  if (error instanceof BoxError) return error;
  const shown = path === "" ? "the workspace root" : path;
  const code = errnoOf(error);
  switch (code) {
    case "ENOENT":
      return new BoxError("not_found", `${shown}: no such file or folder`);
    case "EEXIST":
      return new BoxError("already_exists", `${shown}: already exists`);
    case "ENOTDIR":
      return new BoxError("wrong_type", `${shown}: a folder in the path is not a folder`);
    case "EISDIR":
      return new BoxError("wrong_type", `${shown}: is a folder`);
    case "ENOTEMPTY":
      return new BoxError("not_empty", `${shown}: the folder is not empty`);
    case "ELOOP":
      return new BoxError(
        "outside_workspace",
        `${shown}: turned into a symlink while in use; refused`,
      );
    case "EACCES":
    case "EPERM":
      return new BoxError("permission_denied", `${shown}: permission denied`);
    case "ENAMETOOLONG":
      // A client's path was bounded before; what is left is a symlink leading somewhere deeper.
      return new BoxError(
        "invalid_name",
        `${shown}: too long where it leads (its real path, symlinks followed, passes Linux's PATH_MAX of 4096 bytes)`,
      );
    case "EINVAL":
      return new BoxError("invalid_request", `${shown}: invalid operation (a folder into itself?)`);
    case "ENOSPC":
      return new BoxError("disk_full", `${shown}: no space left on the device`);
    case "EDQUOT":
      return new BoxError("disk_full", `${shown}: the workspace's disk quota is used up`);
    case undefined:
    default:
      return new BoxError(
        "internal",
        `${shown}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
  }
}
