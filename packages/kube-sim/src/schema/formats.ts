/**
 * The OpenAPI string formats the API server checks, as far as the agent-sandbox CRDs use them.
 * Kubernetes only checks formats on strings (`int32`/`int64` on integers are never enforced).
 */

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

// The layouts Kubernetes' date-time parser accepts: RFC 3339 with or without fractional
// seconds, plus its reduced-precision and zone-less ISO 8601 variants.
function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (match === null) return false;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return (
    year !== undefined &&
    month !== undefined &&
    day !== undefined &&
    validDate(year, month, day) &&
    hour !== undefined &&
    hour < 24 &&
    minute !== undefined &&
    minute < 60 &&
    (second === undefined || Number.isNaN(second) || second < 60)
  );
}

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [, year, month, day] = match.map(Number);
  return (
    year !== undefined && month !== undefined && day !== undefined && validDate(year, month, day)
  );
}

/** Whether `text` satisfies `format`; formats this layer does not know are accepted. */
export function matchesFormat(format: string, text: string): boolean {
  switch (format) {
    case "date-time":
      return isDateTime(text);
    case "date":
      return isDate(text);
    default:
      return true;
  }
}
