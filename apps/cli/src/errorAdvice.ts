import type { BerthErrorCode } from "@berth/api";
import type { ExitReason } from "./exitCodes.ts";

/** What the failing command was about, so the advice can name it. */
export interface ErrorScope {
  readonly url: string | undefined;
  readonly sessionId: string | undefined;
}

/** How the CLI answers one server code: why it exits, and what to do next. */
interface Advice {
  /** The exit reason when the server says the call is not worth retrying as it is. */
  readonly reason: Exclude<ExitReason, "ok" | "unreachable" | "storeUnreachable">;
  readonly hint: (scope: ErrorScope) => string;
}

function sessionFlag(scope: ErrorScope): string {
  return `-s ${scope.sessionId ?? "<session>"}`;
}

const fixArguments: Advice = {
  reason: "usage",
  hint: () => "Check the arguments: `berth <command> --help`.",
};
const retryLater: Advice = {
  reason: "retry",
  hint: () => "Run the same command again in a moment.",
};
const report: Advice = {
  reason: "unexpected",
  hint: () => "If it keeps happening, report it with the command you ran.",
};
const signIn: Advice = {
  reason: "signedOut",
  hint: () => "Run `berth login` (the token may have expired or been revoked), or set BERTH_TOKEN.",
};
const askForRole: Advice = {
  reason: "forbidden",
  hint: () => "Ask a workspace admin for a role that allows it, then `berth login` again.",
};
const blocked: Advice = {
  reason: "blocked",
  hint: (scope) =>
    [
      "An admin must restore a revision:",
      `\`berth archives list ${sessionFlag(scope)}\`, then \`berth archives restore <revision> ${sessionFlag(scope)}\``,
      `(or start from an empty workspace: \`berth archives restore --fresh ${sessionFlag(scope)}\`).`,
    ].join(" "),
};
const tooLarge: Advice = {
  reason: "usage",
  hint: () =>
    "Stream large files with `berth get <remote> [local]` and `berth put <local> <remote>`.",
};
const tellOperator: Advice = {
  reason: "unexpected",
  hint: () =>
    "This server cannot create or restore the box as it is set up (the message says why): tell its operator.",
};
const doAsSaid: Advice = {
  reason: "usage",
  hint: () => "Do what the message says, then run the command again.",
};

/**
 * Every code the server can answer (`data.berth.code`), with the exit reason and the advice it
 * gets: keyed by the API's closed set, so a code added there fails to compile here until it is
 * given its own. The advice follows the code, never only the HTTP status: a path outside the
 * workspace is refused as FORBIDDEN, but it is bad input, not a missing role.
 */
export const errorAdvice: Readonly<Record<BerthErrorCode, Advice>> = {
  // Box services (the lease and the routing step).
  blocked,
  fenced: {
    reason: "retry",
    hint: () => "A newer box took over mid-call; run the same command again.",
  },
  instance_lost: {
    reason: "retry",
    hint: () =>
      "The box was lost; run the same command again to bring the workspace back from its archive.",
  },
  box_unavailable: {
    reason: "retry",
    hint: () => "The box did not answer (the call may have run); check, then run it again.",
  },
  // A spawn that left the workspace unrestorable answers `blocked`; one that is not retryable
  // otherwise is this server's set-up (no archive store to restore from).
  spawn_failed: tellOperator,
  wait_timeout: retryLater,
  route_unavailable: {
    reason: "usage",
    hint: () =>
      "The session is routed to a sandbox this server cannot reach; an admin can move it back to its box.",
  },
  capture_refused: {
    reason: "retry",
    hint: () =>
      "The workspace kept changing while it was captured; run it again when it is quieter.",
  },
  capture_unavailable: retryLater,

  // boxd's answers.
  box_credentials_refused: report,
  wrong_pod: {
    reason: "unexpected",
    hint: () =>
      "The box's address now answers for another pod (its own is gone); if it keeps happening, report it with the command you ran.",
  },
  invalid_request: fixArguments,
  invalid_name: {
    reason: "usage",
    hint: () => "Use another name or path: the message says what is wrong with this one.",
  },
  outside_workspace: {
    reason: "usage",
    hint: () =>
      "Paths are relative to /workspace and must stay inside it (no `..` or symlink out of it).",
  },
  permission_denied: {
    reason: "usage",
    hint: (scope) =>
      `The file's own permissions in the box refuse it; change them with \`berth exec ${sessionFlag(scope)} -- chmod …\`.`,
  },
  not_found: {
    reason: "notFound",
    hint: (scope) => `List what is there with \`berth ls ${sessionFlag(scope)}\`.`,
  },
  terminal_not_found: {
    reason: "notFound",
    hint: () => "Open a new terminal with `berth terminal` (reattach needs an open terminal's id).",
  },
  already_exists: {
    reason: "usage",
    hint: () => "Something is there already: choose another path, or remove it first.",
  },
  not_empty: {
    reason: "usage",
    hint: () => "The folder has contents: `berth rm -r` removes it with them.",
  },
  wrong_type: {
    reason: "usage",
    hint: (scope) =>
      `It is a folder where a file was expected, or the other way round: \`berth ls ${sessionFlag(scope)}\` shows which.`,
  },
  version_conflict: {
    reason: "usage",
    hint: () =>
      "The file exists (or changed meanwhile): read it again, or write without --no-overwrite.",
  },
  too_large: tooLarge,
  disk_full: {
    reason: "usage",
    hint: (scope) =>
      `The box's workspace is at its disk limit: see what takes the room with \`berth exec ${sessionFlag(scope)} -- du -sh .\`, remove what is not needed (\`berth rm\`), then run the command again.`,
  },
  git_failed: {
    reason: "usage",
    hint: (scope) =>
      `Git refused it (its message is above); a workspace that is no repository yet needs \`berth exec ${sessionFlag(scope)} -- git init\`.`,
  },
  invalid_archive: report,
  timeout: retryLater,
  unavailable: retryLater,
  machine_offline: {
    reason: "usage",
    hint: () =>
      "The machine's agent is not connected: start it there (`node boxd.mjs agent --server URL --root DIR`), then run this again.",
  },
  stale_route: retryLater,
  unsupported: {
    reason: "usage",
    hint: () =>
      "The machine lacks what this needs: install what the message names there, restart its agent, then run the command again.",
  },
  internal: report,

  // The lease.
  invalid_input: fixArguments,
  session_not_found: {
    reason: "notFound",
    hint: () => "List this workspace's sessions with `berth sessions`.",
  },
  lease_not_found: {
    reason: "notFound",
    hint: () => "The session has no box yet: any file or exec command starts one.",
  },
  profile_conflict: doAsSaid,
  process_not_acquirable: doAsSaid,

  // The spawner (met while a call wakes the box): not retryable exactly when the failure left
  // the lease blocked, so that is the advice then.
  superseded: blocked,
  create_failed: blocked,
  readiness_failed: blocked,
  termination_unconfirmed: retryLater,
  archive_restore_unavailable: tellOperator,
  restore_blocked: blocked,
  restore_failed: blocked,

  // The backends (BERTH_BACKEND): what this server configures, and a backend's own refusals.
  backend_not_configured: {
    reason: "usage",
    hint: () =>
      "Use a backend this server configures (the message lists them; `local` by default), or ask its operator to configure this one.",
  },
  backend_capacity: {
    reason: "retry",
    hint: () => "The backend has no room for another box now; run the same command again later.",
  },
  backend_unavailable: retryLater,
  backend_invalid: tellOperator,
  backend_internal: tellOperator,
  backend_not_found: report,
  // The server's own setup (it runs outside its cluster): only its operator can change that.
  backend_unreachable_pod_network: {
    reason: "unexpected",
    hint: () =>
      "This server cannot reach its Kubernetes boxes' pod IPs: Berth must run inside the cluster (port-forwarding is not built). Ask its operator to deploy it there, or to use the local backend.",
  },

  // An admin's restore of a revision (the box keeps every write whenever one is refused).
  spawn_in_progress: retryLater,
  writes_in_flight: {
    reason: "retry",
    hint: () =>
      "Writes (a long command, say) are still reaching the box; run the same command again once they end.",
  },
  stop_failed: retryLater,
  restore_in_progress: {
    reason: "retry",
    hint: (scope) =>
      `Another restore is under way; once it ends, check \`berth archives list ${sessionFlag(scope)}\` before restoring again.`,
  },
  drain_in_progress: retryLater,
  stale_epoch: {
    reason: "usage",
    hint: (scope) =>
      `The box changed meanwhile: check \`berth machines\` and \`berth archives list ${sessionFlag(scope)}\`, then restore.`,
  },
  fence_lost: retryLater,
  revision_not_found: {
    reason: "notFound",
    hint: (scope) => `\`berth archives list ${sessionFlag(scope)}\` shows the revisions.`,
  },

  // File transfers.
  client_gone: retryLater,

  // Any other refusal, by its tRPC code.
  parse_error: fixArguments,
  bad_request: fixArguments,
  internal_server_error: report,
  not_implemented: report,
  bad_gateway: retryLater,
  service_unavailable: retryLater,
  gateway_timeout: retryLater,
  unauthorized: signIn,
  payment_required: report,
  forbidden: askForRole,
  method_not_supported: fixArguments,
  conflict: doAsSaid,
  precondition_failed: doAsSaid,
  payload_too_large: tooLarge,
  unsupported_media_type: report,
  unprocessable_content: fixArguments,
  precondition_required: doAsSaid,
  too_many_requests: retryLater,
  client_closed_request: retryLater,
};

/**
 * The reason and advice for a server's answer. The server's `retryable` is the truth about what
 * the next call will do: the CLI exits "retry" exactly when it says so. A code this CLI does not
 * know (a newer server) is advised by its tRPC code.
 */
export function adviceFor(
  answer: {
    readonly trpcCode: string;
    readonly berthCode: string | undefined;
    readonly retryable: boolean;
  },
  scope: ErrorScope,
): { reason: ExitReason; hint: string } {
  const byStatus = known(answer.trpcCode.toLowerCase());
  const advice = known(answer.berthCode) ?? byStatus ?? report;
  if (answer.retryable)
    return { reason: "retry", hint: (advice.reason === "retry" ? advice : retryLater).hint(scope) };
  // A code that is usually retryable, answered as final this time: what its status says.
  const settled =
    advice.reason !== "retry"
      ? advice
      : byStatus?.reason === "retry"
        ? report
        : (byStatus ?? report);
  return { reason: settled.reason, hint: settled.hint(scope) };
}

function known(code: string | undefined): Advice | undefined {
  return code !== undefined && Object.hasOwn(errorAdvice, code)
    ? errorAdvice[code as BerthErrorCode]
    : undefined;
}

/** Advice for the CLI's own reasons, where no server answered. */
export function localAdvice(reason: "unexpected" | "unreachable", scope: ErrorScope): string {
  return reason === "unexpected"
    ? report.hint(scope)
    : `Check the address (${scope.url ?? "--url / BERTH_URL"}) and that Berth is running, then retry.`;
}
