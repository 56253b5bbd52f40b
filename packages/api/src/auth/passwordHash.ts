import { hash, verify } from "@node-rs/argon2";

// argon2id with the library's defaults (19 MiB, 2 passes): OWASP's recommended minimum.

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function verifyPassword(input: { hash: string; password: string }): Promise<boolean> {
  // A malformed stored hash is a failed sign-in, not a server error.
  return verify(input.hash, input.password).catch(() => false);
}
