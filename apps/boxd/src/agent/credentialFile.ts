import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** What enrollment left on the machine: the credential and what it belongs to. */
export const storedCredentialSchema = z.object({
  server: z.string(),
  machineId: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  credential: z.string().min(1),
});
export type StoredCredential = z.infer<typeof storedCredentialSchema>;

/** One file per server (by host), so one machine may be enrolled with several Berths. */
export function credentialPath(stateDir: string, server: string): string {
  return join(stateDir, `${new URL(server).host}.json`);
}

/** The stored credential for `server`, or undefined when none is (or it is unreadable). */
export function readCredential(stateDir: string, server: string): StoredCredential | undefined {
  let text: string;
  try {
    text = readFileSync(credentialPath(stateDir, server), "utf8");
  } catch {
    return undefined;
  }
  const parsed = storedCredentialSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

/**
 * Writes the credential only its user can read: the folder 0700, the file made 0600 under a
 * temporary name and renamed over the old one, so a crash never leaves half a credential and
 * the secret is never readable by others, not even for a moment.
 */
export function writeCredential(stateDir: string, stored: StoredCredential): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = credentialPath(stateDir, stored.server);
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return path;
}
