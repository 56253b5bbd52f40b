// The exit codes scripts may rely on. Changing a number breaks every script that checks it:
// add new reasons at the end instead.

/** Why the CLI exits, each with its fixed code. `exec` and `terminal` pass through the remote command's own code. */
export const exitCodes = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  signedOut: 3,
  forbidden: 4,
  notFound: 5,
  blocked: 6,
  retry: 7,
  unreachable: 8,
  storeUnreachable: 9,
} as const;

export type ExitReason = keyof typeof exitCodes;

/** One line per code, for `berth --help` and the README. */
export const exitCodeMeanings: Readonly<Record<ExitReason, string>> = {
  ok: "success",
  unexpected: "unexpected error (a bug, or an answer the CLI does not know)",
  usage:
    "bad usage, or refused as asked: unknown command or option, missing argument, invalid input, the file exists, the box is not blocked or it changed",
  signedOut: "not signed in, or the token was refused (expired, revoked): run `berth login`",
  forbidden: "forbidden: your role (or the token's) does not allow it",
  notFound: "not found: no such file, session, terminal or revision",
  blocked: "blocked: the session's workspace cannot be restored; an admin must restore a revision",
  retry: "retryable: the box was lost, fenced or unavailable; run the same command again",
  unreachable: "the server could not be reached: check --url / BERTH_URL and that Berth runs",
  storeUnreachable:
    "the archive store does not answer (`berth archives store`): captures and restores fail until it is back",
};

/** The exit-code table as help text. */
export function exitCodeHelp(): string {
  const lines = (Object.keys(exitCodes) as ExitReason[]).map(
    (reason) => `  ${String(exitCodes[reason])}  ${exitCodeMeanings[reason]}`,
  );
  return [
    "Exit codes:",
    ...lines,
    "  exec and terminal exit with the remote command's own code.",
  ].join("\n");
}
