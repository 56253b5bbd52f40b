// Next.js calls register() once when the server starts: the web process validates its
// environment there, so a bad variable stops it at start, not at the first request.
export async function register(): Promise<void> {
  // Next replaces this literal at build time, which drops the Node-only import from the edge
  // bundle; behind a function call (env.ts) it could not.
  // eslint-disable-next-line no-restricted-properties
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { validateEnvOrExit } = await import("./server/startup.ts");
  validateEnvOrExit();
}
