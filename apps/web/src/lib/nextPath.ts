/**
 * Where to go after signing in: a path on this site, else the dashboard. `//host` and `/\host`
 * also start with "/" but browsers read them as another site, so they are refused (open redirect).
 */
export function safeNextPath(next: string | undefined): string {
  if (next === undefined || !next.startsWith("/")) return "/";
  if (next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}
