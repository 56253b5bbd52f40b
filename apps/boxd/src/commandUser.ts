/**
 * The user every command in the box runs as — exec, terminals, git and its hooks — when boxd
 * (root in the box's namespaces, with only the capabilities it needs) serves a box of its own
 * user. boxd's memory and token then belong to another user than anything a command runs.
 */
export interface CommandUser {
  readonly uid: number;
  readonly gid: number;
  /**
   * The most processes the user may run at once (RLIMIT_NPROC), where no cgroup limits the box:
   * it counts every process of the uid, which is the box's alone.
   */
  readonly processes?: number;
}

/**
 * argv as it runs as `user`: through setpriv, which takes the uid and gid (real, effective and
 * saved: nothing to switch back to), drops every supplementary group, sets no-new-privs (no
 * setuid binary or file capability raises it again) and empties the capability bounding set
 * before it execs the command. Without a user, argv as it is.
 */
export function commandLine(
  user: CommandUser | undefined,
  argv: readonly [string, ...string[]],
): readonly [string, ...string[]] {
  if (user === undefined) return argv;
  const switched: [string, ...string[]] = [
    "setpriv",
    `--reuid=${String(user.uid)}`,
    `--regid=${String(user.gid)}`,
    "--clear-groups",
    "--no-new-privs",
    "--bounding-set=-all",
    "--inh-caps=-all",
    "--",
    ...argv,
  ];
  // prlimit (as root) sets the limit, then setpriv switches: the limit counts the user's processes.
  return user.processes === undefined
    ? switched
    : ["prlimit", `--nproc=${String(user.processes)}`, "--", ...switched];
}

const STRERROR_CODES: Readonly<Record<string, string>> = {
  "No such file or directory": "ENOENT",
  "Permission denied": "EACCES",
  "Is a directory": "EISDIR",
  "Not a directory": "ENOTDIR",
  "Exec format error": "ENOEXEC",
  "Argument list too long": "E2BIG",
  "File name too long": "ENAMETOOLONG",
};

/**
 * When setpriv could not exec `program`, the errno it met, as a spawn error carries it — so a
 * command that never started is reported as one (a missing program, a folder), not as a
 * command that ran and failed. setpriv says so on stderr and exits 126 or 127.
 */
export function execFailureOf(
  program: string,
  exit: { readonly code: number | null; readonly stderr: string },
): NodeJS.ErrnoException | undefined {
  if (exit.code !== 126 && exit.code !== 127) return undefined;
  const prefix = `setpriv: failed to execute ${program}: `;
  if (!exit.stderr.startsWith(prefix)) return undefined;
  const reason = exit.stderr.slice(prefix.length).trim();
  const code = STRERROR_CODES[reason];
  if (code === undefined) return undefined;
  return Object.assign(new Error(`${program}: ${reason}`), { code });
}
