/** Sizes past which boxd refuses work instead of holding it in memory. */
const MiB = 1024 * 1024;

/** Whole-file reads and JSON writes; larger files go through ranges or the streams. */
export const MAX_INLINE_BYTES = 8 * MiB;
/** A JSON request body: an inline write's base64 plus room for the envelope. */
export const MAX_JSON_BODY_BYTES = 12 * MiB;
/** git diff/show text returned at once; longer text is cut and flagged. */
export const MAX_GIT_TEXT_BYTES = 8 * MiB;
/** Output a terminal keeps for reconnecting clients. */
export const TERMINAL_REPLAY_BYTES = 1 * MiB;
/** A WebSocket client this far behind is dropped; it reconnects with its last sequence. */
export const MAX_SOCKET_BACKLOG_BYTES = 8 * MiB;
/** How long git may run before it is killed. */
export const GIT_TIMEOUT_MS = 120_000;
/** How long shutdown waits for in-flight requests. */
export const SHUTDOWN_GRACE_MS = 5_000;
