/**
 * How `boxd agent` ends, for whoever runs it (a shell, a systemd unit): a revoked credential or a
 * refused code must not be retried blindly, so each has its own code.
 */
export const AGENT_EXIT = {
  /** Stopped by SIGTERM or SIGINT. */
  stopped: 0,
  /** Could not start (no server reachable for enrollment, the root unusable). */
  failed: 1,
  /** The command line is wrong; the message names the flag. */
  usage: 2,
  /** The server refused the enrollment code (used, expired, unknown): get a new one. */
  enrollRefused: 3,
  /** The server no longer accepts the machine's credential (revoked): enroll again. */
  revoked: 4,
} as const;

/** A reason to end the agent with one of AGENT_EXIT's codes and a message for people. */
export class AgentExit extends Error {
  override readonly name = "AgentExit";
  constructor(
    readonly code: (typeof AGENT_EXIT)[keyof typeof AGENT_EXIT],
    message: string,
  ) {
    super(message);
  }
}
