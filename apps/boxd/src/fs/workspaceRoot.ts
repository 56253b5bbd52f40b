// Race-free confinement to the workspace root.
//
// Node has no openat(2), but Linux's /proc/self/fd/N is a "magic link": a path that starts with
// it continues from the very directory fd N holds, whatever has since happened to the names
// that led there. So `open("/proc/self/fd/N/name", O_NOFOLLOW)` is openat(N, "name",
// O_NOFOLLOW). boxd resolves every client path one component at a time this way, from a
// handle on the root it opened at start:
//
// - each step opens exactly one name inside a directory it already holds, with O_NOFOLLOW, so
//   a symlink is never followed by the kernel: the open fails with ELOOP instead, and boxd
//   reads the link and decides itself (a target inside the root is followed by restarting
//   from the root; anything else is `outside_workspace`). A directory swapped for a symlink
//   between two steps is caught by that same O_NOFOLLOW open: there is no gap between a check
//   and a use, because the open is the check.
// - operations then act on names relative to the held parent (`/proc/self/fd/P/name` for
//   rename, unlink, mkdir, symlink, lstat), so the last component is never followed either.
// - finally the real path of each held fd (readlink of /proc/self/fd/N) must still be the
//   root or below it, which catches a held directory that was moved out of the workspace.
import { constants } from "node:fs";
import { open, readlink, realpath, type FileHandle } from "node:fs/promises";
import { BoxError, PATH_LIMITS } from "@berth/box-protocol";
import { errnoOf, fsError } from "./fsErrors.ts";
import { joinPath } from "./workspacePath.ts";

/** Open a directory, never through a symlink. */
export const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/**
 * Reopen a folder we already hold: here following is the point, since /proc/self/fd/N is itself
 * a (magic) link, and O_NOFOLLOW would refuse it.
 */
const REOPEN_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

/** A second, independently closable handle on a folder we hold. */
export function reopen(directory: FileHandle): Promise<FileHandle> {
  return open(at(directory), REOPEN_FLAGS);
}

/** Open a file to read, never through a symlink, and never blocking on a FIFO. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Linux's own limit on symlinks followed while resolving one path. */
const MAX_SYMLINK_HOPS = 40;

/** The name `name` inside the directory `directory` holds, as a path the kernel resolves via the fd. */
/** `/proc/self/fd/<fd>/<name>`: a name inside a folder held by raw fd (the synchronous paths). */
export function atFd(fd: number, name: string): string {
  return `/proc/self/fd/${String(fd)}/${name}`;
}

export function at(directory: FileHandle, name?: string): string {
  return name === undefined
    ? `/proc/self/fd/${directory.fd}`
    : `/proc/self/fd/${directory.fd}/${name}`;
}

export interface Resolved {
  /** The held directory containing the target (or the target itself when `name` is undefined). */
  readonly directory: FileHandle;
  /** The final name inside `directory`, not yet opened; undefined when the path is a folder reached as such (the root). */
  readonly name: string | undefined;
  /** The folder's real path relative to the root, symlinks resolved. */
  readonly directoryPath: readonly string[];
}

export interface ResolveOptions {
  /** Follow a symlink in the last component (read, write); stat, move and remove do not. */
  readonly followLast: boolean;
  /** What to call the path in errors. */
  readonly shownPath: string;
}

/** Who owns what boxd makes in the workspace: the box's own user, whom its commands run as. */
export interface WorkspaceOwner {
  readonly uid: number;
  readonly gid: number;
}

export class WorkspaceRoot {
  private constructor(
    /** The root's real path, symlinks resolved. */
    readonly realPath: string,
    private readonly handle: FileHandle,
    /** undefined: what boxd makes stays boxd's (its commands run as boxd's own user). */
    readonly owner: WorkspaceOwner | undefined,
  ) {}

  /** Opens the root once; every later path resolves from this handle. */
  static async open(root: string, owner?: WorkspaceOwner): Promise<WorkspaceRoot> {
    const realPath = await realpath(root);
    const handle = await open(realPath, DIRECTORY_FLAGS);
    return new WorkspaceRoot(realPath, handle, owner);
  }

  /**
   * Gives what boxd just made (by its handle) to the box's user: boxd runs as root, and a file
   * its commands cannot write, or a folder git refuses as another user's, would be no file of
   * theirs at all.
   */
  async own(made: FileHandle): Promise<void> {
    if (this.owner !== undefined) await made.chown(this.owner.uid, this.owner.gid);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** A fresh handle on the root (the caller closes it). */
  openRoot(): Promise<FileHandle> {
    return reopen(this.handle);
  }

  /**
   * Resolves `components` to a held parent directory and a final name. The caller owns and
   * closes `directory`.
   */
  async resolve(components: readonly string[], options: ResolveOptions): Promise<Resolved> {
    this.assertFits(components);
    const pending = [...components];
    let directory = await this.openRoot();
    let directoryPath: string[] = [];
    let hops = 0;
    try {
      for (;;) {
        const name = pending.shift();
        if (name === undefined) {
          await this.assertInside(directory, options.shownPath);
          return { directory, name: undefined, directoryPath };
        }
        if (name === "" || name === ".") continue;
        if (name === "..") {
          // Only symlink targets bring ".." here; client paths never contain it.
          if (directoryPath.length === 0) throw escapes(options.shownPath);
          directoryPath = directoryPath.slice(0, -1);
          await directory.close();
          directory = await this.openPlain(directoryPath, options.shownPath);
          continue;
        }
        const last = pending.length === 0;
        if (last && !options.followLast) {
          await this.assertInside(directory, options.shownPath);
          return { directory, name, directoryPath };
        }
        const step = await stepInto(directory, name, last);
        if (step.kind === "entered") {
          await directory.close();
          directory = step.handle;
          directoryPath = [...directoryPath, name];
          continue;
        }
        if (step.kind === "leaf") {
          await this.assertInside(directory, options.shownPath);
          return { directory, name, directoryPath };
        }
        hops += 1;
        if (hops > MAX_SYMLINK_HOPS) {
          throw new BoxError("invalid_name", `${options.shownPath}: too many levels of symlinks`);
        }
        const restart = this.spliceTarget(step.target, directoryPath, options.shownPath);
        pending.unshift(...restart);
        await directory.close();
        directory = await this.openRoot();
        directoryPath = [];
      }
    } catch (error) {
      await directory.close();
      throw fsError(error, options.shownPath);
    }
  }

  /**
   * Refuses, before any work, a path whose absolute form (the root's real path, "/", the path)
   * would pass PATH_MAX. The kernel could hold such a folder, reached step by step, but not
   * boxd's check of where a held folder really is (readlink of /proc/self/fd/N answers
   * ENAMETOOLONG) nor a process started in it, so the call would fail part-way through.
   */
  assertFits(components: readonly string[]): void {
    if (components.length === 0) return;
    const bytes = Buffer.byteLength(joinPath(components));
    const absolute = this.realPathBytes + 1 + bytes;
    // PATH_MAX counts the terminating NUL. (Read here, not at load: the worker threads'
    // bundle imports this module's helpers and so carries no path limits.)
    if (absolute > PATH_LIMITS.maxBytes - 1)
      throw new BoxError(
        "invalid_name",
        `the path is ${String(bytes)} bytes, ${String(absolute)} with this workspace's folder in front: past Linux's PATH_MAX of ${String(PATH_LIMITS.maxBytes)} bytes`,
      );
  }

  private get realPathBytes(): number {
    return Buffer.byteLength(this.realPath);
  }

  /** Opens the directory at real components (no symlinks expected on the way). */
  async openPlain(components: readonly string[], shownPath: string): Promise<FileHandle> {
    let directory = await this.openRoot();
    try {
      for (const name of components) {
        const next = await open(at(directory, name), DIRECTORY_FLAGS);
        await directory.close();
        directory = next;
      }
      return directory;
    } catch (error) {
      await directory.close();
      throw fsError(error, shownPath);
    }
  }

  /** The fd's real path must be the root or below it (a held folder may have been moved away). */
  async assertInside(handle: FileHandle, shownPath: string): Promise<void> {
    const real = await readlink(at(handle));
    const inside = real === this.realPath || real.startsWith(`${this.realPath}/`);
    if (!inside) throw escapes(shownPath);
  }

  /** A symlink's target as components from the root, refusing any that leave it. */
  private spliceTarget(target: string, from: readonly string[], shownPath: string): string[] {
    if (target.startsWith("/")) {
      const inside = target === this.realPath || target.startsWith(`${this.realPath}/`);
      if (!inside) throw escapes(shownPath);
      return target.slice(this.realPath.length).split("/");
    }
    // Relative: from the link's own folder. ".." is walked physically, one step at a time.
    return [...from, ...target.split("/")];
  }
}

type Step =
  | { readonly kind: "entered"; readonly handle: FileHandle }
  | { readonly kind: "leaf" }
  | { readonly kind: "symlink"; readonly target: string };

/**
 * One step: enter `name` as a folder, or report it as a symlink to resolve, or (last
 * component only) as a leaf that is not a folder or does not exist yet.
 */
async function stepInto(directory: FileHandle, name: string, last: boolean): Promise<Step> {
  try {
    return { kind: "entered", handle: await open(at(directory, name), DIRECTORY_FLAGS) };
  } catch (error) {
    const code = errnoOf(error);
    // With O_DIRECTORY the kernel reports a symlink as ENOTDIR (ELOOP without it).
    if (code === "ELOOP" || code === "ENOTDIR") {
      const target = await symlinkTarget(directory, name);
      if (target !== undefined) return { kind: "symlink", target };
    }
    if (last && (code === "ENOTDIR" || code === "ENOENT")) return { kind: "leaf" };
    throw error;
  }
}

/** The link's target, or undefined when `name` is not a symlink (EINVAL) or gone (ENOENT). */
async function symlinkTarget(directory: FileHandle, name: string): Promise<string | undefined> {
  try {
    return await readlink(at(directory, name));
  } catch (error) {
    const code = errnoOf(error);
    if (code === "EINVAL" || code === "ENOENT") return undefined;
    throw error;
  }
}

function escapes(shownPath: string): BoxError {
  return new BoxError(
    "outside_workspace",
    `${shownPath}: resolves outside the workspace (through a symlink or a moved folder)`,
  );
}

/** The path as shown to clients. */
export function shown(components: readonly string[]): string {
  return joinPath(components);
}
