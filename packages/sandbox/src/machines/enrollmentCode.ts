/**
 * The one-time enrollment code an admin hands to a machine (issue 39): 20 characters of
 * Crockford's base32 (100 random bits), shown in four groups of five. Berth keeps only its
 * SHA-256: the code is random and short-lived, so a fast hash leaves nothing to guess from.
 */
import { createHash, randomBytes } from "node:crypto";

/** Crockford's base32: digits and letters without I, L, O and U (read as 1, 1, 0 and nothing). */
export const ENROLLMENT_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const CODE_LENGTH = 20;
const GROUP = 5;

/** A new code, `XXXXX-XXXXX-XXXXX-XXXXX`. */
export function newEnrollmentCode(): string {
  // 256 is a multiple of 32: every byte's low five bits pick a character without bias.
  const chars = [...randomBytes(CODE_LENGTH)].map(
    (byte) => ENROLLMENT_CODE_ALPHABET[byte & 31] ?? "",
  );
  const groups: string[] = [];
  for (let at = 0; at < CODE_LENGTH; at += GROUP) groups.push(chars.slice(at, at + GROUP).join(""));
  return groups.join("-");
}

/**
 * The code as it is hashed: upper case, without dashes or spaces, and with the letters people
 * mistake for digits read as those digits (O → 0, I and L → 1), so a code typed from a screen
 * still matches.
 */
export function normalizeEnrollmentCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
}

/** The SHA-256 (hex) of the normalized code: what machine_enrollment_codes.code_hash holds. */
export function enrollmentCodeHash(code: string): string {
  return createHash("sha256").update(normalizeEnrollmentCode(code), "utf8").digest("hex");
}
