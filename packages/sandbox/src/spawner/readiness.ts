import type { BoxClient } from "@berth/box-protocol";

/**
 * Exec readiness: boxd answers its health check and really runs `true` (exit 0). Retried until
 * `timeoutMs` passes; an in-process wait, so it uses the monotonic clock, not the lease Clock.
 */
export async function waitForExecReady(options: {
  client: BoxClient;
  timeoutMs: number;
  intervalMs?: number;
}): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  let lastError: unknown;
  while (performance.now() < deadline) {
    try {
      await options.client.health();
      const result = await options.client.exec({ argv: ["true"], timeoutMs: 5_000 });
      if (result.exitCode === 0) return;
      lastError = new Error(
        `\`true\` exited ${String(result.exitCode)} (signal ${String(result.signal)})`,
      );
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(
    `box not ready within ${String(options.timeoutMs)} ms: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
    { cause: lastError },
  );
}
