import { formatTime } from "./formatTime.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * How long before `now` something happened, in the largest whole unit ("12 s ago", "3 min ago",
 * "2 h ago"); from a day on, the timestamp itself (formatTime), which reads better than "9 d
 * ago". Under 5 s, and a time ahead of `now` (the browser's clock a little behind the server's),
 * read "just now".
 */
export function timeAgo(then: Date | null, now: number, whenMissing = "never"): string {
  if (then === null) return whenMissing;
  const elapsed = now - then.getTime();
  if (elapsed < 5 * SECOND) return "just now";
  if (elapsed < MINUTE) return `${String(Math.floor(elapsed / SECOND))} s ago`;
  if (elapsed < HOUR) return `${String(Math.floor(elapsed / MINUTE))} min ago`;
  if (elapsed < 24 * HOUR) return `${String(Math.floor(elapsed / HOUR))} h ago`;
  return formatTime(then);
}
