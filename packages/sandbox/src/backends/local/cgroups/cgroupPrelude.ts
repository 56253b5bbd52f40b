/**
 * The shell that puts a box in its cgroups before the box exists: it writes its own pid ($$)
 * into each cgroup.procs file, then execs the command in place — same process, same pid — so
 * bwrap starts inside the box's cgroups, and so does everything it and its sandbox ever fork.
 * Writing bwrap's pid after spawn instead would race bwrap's first fork (its sandbox init is
 * made at once), leaving the box outside its limits. A cgroup that cannot be joined ends the
 * start (exit 125, the shell's message in boxd's log) rather than run a box unlimited.
 * PWD is the one variable the shell adds to the environment: unset, so the box gets exactly
 * the environment it was given.
 */
const PRELUDE = [
  'n="$1"',
  "shift",
  'while [ "$n" -gt 0 ]; do echo "$$" > "$1" || exit 125; shift; n=$((n - 1)); done',
  "unset PWD",
  'exec "$@"',
].join("; ");

/** `argv` run inside the cgroups whose cgroup.procs files are given (argv itself when none). */
export function joiningCgroups(procsFiles: readonly string[], argv: readonly string[]): string[] {
  if (procsFiles.length === 0) return [...argv];
  return [
    "/bin/sh",
    "-c",
    PRELUDE,
    "berth-join-cgroups",
    String(procsFiles.length),
    ...procsFiles,
    ...argv,
  ];
}
