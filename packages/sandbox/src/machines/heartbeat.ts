/** How often a replica pings each agent channel it holds (and checks its credential). */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * A machine whose agent answered a ping within this long is online: one heartbeat period and a
 * grace for the answer's trip. A replica that stops heartbeating (it died) stops refreshing
 * its machines' rows, so they read offline within this window too.
 */
export const MACHINE_ONLINE_WINDOW_MS = DEFAULT_HEARTBEAT_MS + 5_000;

/** Online: connected, and its agent answered within the window (the Clock's `now`). */
export function connectedRecently(lastAnsweredAt: Date | number | null, now: Date): boolean {
  if (lastAnsweredAt === null) return false;
  const at = typeof lastAnsweredAt === "number" ? lastAnsweredAt : lastAnsweredAt.getTime();
  return now.getTime() - at <= MACHINE_ONLINE_WINDOW_MS;
}
