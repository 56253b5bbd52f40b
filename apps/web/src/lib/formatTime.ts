/** A timestamp to the minute, in UTC, so every viewer and every test reads the same text. */
export function formatTime(date: Date | null | undefined, whenMissing = "never"): string {
  if (date === null || date === undefined) return whenMissing;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
