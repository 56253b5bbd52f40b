import { createHash, createHmac, randomBytes } from "node:crypto";

/**
 * Secrets Berth presents are derived from BERTH_SECRET, never stored; each use has its own label
 * so no two derived keys are equal.
 */
export function deriveSecret(berthSecret: string, label: string): string {
  return createHmac("sha256", berthSecret).update(`berth:${label}`).digest("base64url");
}

/** A bearer secret (API token, invitation): 256 random bits behind a readable prefix. */
export function newBearerSecret(prefix: "berth_tok" | "berth_inv"): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

/**
 * What is stored for a bearer secret. A plain sha256 suffices: the secret has 256 random bits,
 * so there is nothing to guess that a slow hash would protect (passwords get argon2id).
 */
export function hashBearerSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
