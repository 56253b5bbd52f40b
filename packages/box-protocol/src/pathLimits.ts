// The bounds of a workspace path, without the wire schemas (schemas/files.ts): the schema
// checks them at every edge, and boxd checks them again before it touches the disk.

/**
 * How long and deep a workspace path may be, each checked before any work. The bytes are
 * Linux's own limits (PATH_MAX and NAME_MAX, in UTF-8 bytes); the depth bounds what one call
 * may cost, since every level is a few system calls (no project nests 256 folders deep).
 */
export const PATH_LIMITS = {
  /** A whole path: Linux's PATH_MAX. */
  maxBytes: 4096,
  /** One name in it: Linux's NAME_MAX. */
  maxNameBytes: 255,
  /** Names in it ("" and "." do not count). */
  maxDepth: 256,
} as const;

const utf8 = new TextEncoder();

/** The names a path is made of: "" and "." components are dropped ("", "." and "./" are the root). */
export function pathNames(path: string): string[] {
  return path.split("/").filter((part) => part !== "" && part !== ".");
}

/**
 * Why `path` is past one of PATH_LIMITS (a sentence naming the limit), or undefined when it is
 * within them. Cheap whatever the input: the bytes are counted before anything is split.
 */
export function pathLimitProblem(path: string): string | undefined {
  const bytes = utf8.encode(path).byteLength;
  if (bytes > PATH_LIMITS.maxBytes)
    return `is ${String(bytes)} bytes; a path is at most ${String(PATH_LIMITS.maxBytes)} bytes (Linux's PATH_MAX)`;
  const names = pathNames(path);
  if (names.length > PATH_LIMITS.maxDepth)
    return `is ${String(names.length)} names deep; a path is at most ${String(PATH_LIMITS.maxDepth)} names deep`;
  const long = names.find((name) => utf8.encode(name).byteLength > PATH_LIMITS.maxNameBytes);
  if (long !== undefined)
    return `has a name of ${String(utf8.encode(long).byteLength)} bytes; a name is at most ${String(PATH_LIMITS.maxNameBytes)} bytes (Linux's NAME_MAX)`;
  return undefined;
}
