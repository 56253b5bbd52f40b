/** Polls the status procedure until the dashboard answers, or the deadline passes. */
export async function waitUntilServing(options: {
  url: string;
  timeoutMs: number;
  stopped: () => boolean;
}): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const probe = new URL("/api/trpc/status.get", options.url);
  while (Date.now() < deadline) {
    if (options.stopped()) throw new Error("the dashboard exited while starting");
    const ok = await fetch(probe).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `the dashboard did not answer on ${options.url} within ${options.timeoutMs / 1000} s`,
  );
}
