import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// How a launcher recognises the web server it started, never another process on its port (an
// earlier start's server still running, or anyone's): each probe carries a fresh random
// challenge, and only a server holding this start's nonce can answer HMAC(nonce, challenge).
// The answer reveals nothing of the nonce, and an old answer is worth nothing for a new
// challenge; the nonce grants nothing else and dies with the start.

/** The request header a readiness probe carries: a fresh random challenge. */
export const LAUNCH_CHALLENGE_HEADER = "x-berth-launch-challenge";
/** The response header Berth's web server answers it with. */
export const LAUNCH_PROOF_HEADER = "x-berth-launch-proof";

/** Longer challenges are not answered: a probe's is 22 characters. */
const MAX_CHALLENGE_LENGTH = 128;

/** A new start's nonce, for BERTH_LAUNCH_NONCE. */
export function newLaunchNonce(): string {
  return randomBytes(32).toString("base64url");
}

/** A new probe's challenge. */
export function newLaunchChallenge(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * What a web server holding `nonce` answers to a request's challenge header, or undefined when
 * the request carries none (or a malformed one).
 */
export function answerLaunchChallenge(
  challenge: string | string[] | undefined,
  nonce: string,
): string | undefined {
  if (typeof challenge !== "string" || challenge.length === 0) return undefined;
  if (challenge.length > MAX_CHALLENGE_LENGTH) return undefined;
  return createHmac("sha256", nonce).update(challenge).digest("base64url");
}

/** Whether `proof` (a response's header, or null) answers `challenge` under `nonce`. */
export function isLaunchProof(options: {
  readonly nonce: string;
  readonly challenge: string;
  readonly proof: string | null;
}): boolean {
  const expected = answerLaunchChallenge(options.challenge, options.nonce);
  if (expected === undefined || options.proof === null) return false;
  const given = Buffer.from(options.proof);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
