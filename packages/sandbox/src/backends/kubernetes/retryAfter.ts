/**
 * RFC 9110 §10.2.3 Retry-After: delta-seconds or an HTTP-date. A date in the past (or a
 * negative delay) means "now" (0); anything unparsable means the server said nothing usable.
 *
 * @param value the header as received, if any
 * @param nowMs the wall-clock time to measure an HTTP-date against
 * @returns the wait in ms, or undefined
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^-?\d+$/.test(text)) return Math.max(0, Number(text) * 1000);
  // Only a real date: Date.parse also reads bare numbers and fragments, which the branch above
  // or this shape check rule out.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
