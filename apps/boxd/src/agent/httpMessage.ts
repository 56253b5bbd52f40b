/** A refusal's words for people: the server's `message` (or `error.message`) when JSON, else its text. */
export async function refusalMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
    const message = body.error?.message ?? body.message;
    if (typeof message === "string") return message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim() === "" ? `HTTP ${String(response.status)}` : text.trim().slice(0, 500);
}

/** A failed fetch's words: fetch's own ("fetch failed") say little without their cause. */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
