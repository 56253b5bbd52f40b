import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export interface DeriveBoxTokenOptions {
  /** Berth's `BERTH_SECRET`. Only the control plane holds it; a box only ever sees its token. */
  readonly secret: string;
  /** The box instance the token admits to. */
  readonly instanceId: string;
}

/**
 * The token of one local box: hex HMAC-SHA256(secret, instanceId). Berth derives it whenever
 * it talks to the box and never stores it; a token for one instance opens no other.
 */
export function deriveBoxToken(options: DeriveBoxTokenOptions): string {
  if (options.secret === "") throw new Error("deriveBoxToken: the secret is empty");
  if (options.instanceId === "") throw new Error("deriveBoxToken: the instanceId is empty");
  return createHmac("sha256", options.secret).update(options.instanceId, "utf8").digest("hex");
}

/**
 * Constant-time token comparison. Both sides are hashed first so the compared buffers always
 * have the same length: timingSafeEqual throws on unequal lengths, and branching on length
 * would leak it.
 */
export function tokensMatch(presented: string, expected: string): boolean {
  const left = createHash("sha256").update(presented, "utf8").digest();
  const right = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(left, right);
}
