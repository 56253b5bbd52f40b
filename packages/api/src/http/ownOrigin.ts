/**
 * Whether a browser sent this request from one of Berth's own pages: its Origin is one of
 * Berth's, or, without an Origin (browsers omit it on same-origin GETs), its Sec-Fetch-Site
 * says same-origin. Both are headers a page's scripts cannot set; a script outside a browser
 * can, but it holds no one's cookie unless it was given one.
 */
export function fromOwnPages(headers: Headers, trustedOrigins: readonly string[]): boolean {
  const origin = headers.get("origin");
  if (origin !== null) return trustedOrigins.includes(origin);
  return headers.get("sec-fetch-site") === "same-origin";
}
