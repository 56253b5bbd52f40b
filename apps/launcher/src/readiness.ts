import {
  isLaunchProof,
  LAUNCH_CHALLENGE_HEADER,
  LAUNCH_PROOF_HEADER,
  newLaunchChallenge,
} from "@berth/launch-protocol";

/** Something other than the web server this start launched answers on its address. */
export class ForeignServerError extends Error {
  override readonly name = "ForeignServerError";
  constructor(readonly url: string) {
    super(
      `Another server answers on ${url}, not the dashboard this start launched (an earlier ` +
        `Berth that is still running?). Stop it, or start with another PORT.`,
    );
  }
}

/** How long to wait between probes while the dashboard is starting. */
const PROBE_EVERY_MS = 200;

/**
 * Polls the status procedure until this start's own web server answers it, or the deadline
 * passes. Each probe carries a fresh challenge that only a server holding `nonce` (which the
 * launcher gave its web child alone) can answer: any other answer is another server on the
 * port, and the start stops there, before anything says Berth is running.
 */
export async function waitUntilServing(options: {
  url: string;
  nonce: string;
  timeoutMs: number;
  stopped: () => boolean;
}): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const probe = new URL("/api/trpc/status.get", options.url);
  while (Date.now() < deadline) {
    if (options.stopped()) throw new Error("the dashboard exited while starting");
    const challenge = newLaunchChallenge();
    const response = await fetch(probe, {
      headers: { [LAUNCH_CHALLENGE_HEADER]: challenge },
    }).catch(() => undefined);
    if (response !== undefined) {
      await response.body?.cancel();
      const proof = response.headers.get(LAUNCH_PROOF_HEADER);
      if (!isLaunchProof({ nonce: options.nonce, challenge, proof }))
        throw new ForeignServerError(options.url);
      if (response.ok) return;
    }
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
  }
  throw new Error(
    `the dashboard did not answer on ${options.url} within ${String(options.timeoutMs / 1000)} s`,
  );
}
