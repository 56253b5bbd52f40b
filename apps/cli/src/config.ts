import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { CliError } from "./errors.ts";

const credentialsSchema = z.object({
  url: z.url({ protocol: /^https?$/ }),
  token: z.string().min(1),
  workspaceId: z.string().min(1),
});

/** What `berth login` keeps: where Berth is, the API token, and the token's workspace. */
export type Credentials = z.infer<typeof credentialsSchema>;

export function credentialsPath(configDir: string): string {
  return join(configDir, "credentials.json");
}

/** The stored credentials, or undefined when there are none. */
export async function readCredentials(configDir: string): Promise<Credentials | undefined> {
  const path = credentialsPath(configDir);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = credentialsSchema.safeParse(parsed);
  if (!result.success)
    throw new CliError({
      reason: "signedOut",
      code: "credentials_invalid",
      message: `${path} is not a credentials file Berth wrote.`,
      hint: "Run `berth logout`, then `berth login`.",
    });
  return result.data;
}

/**
 * Stores the credentials readable by their owner only (0600, in a 0700 folder). Written to a
 * temporary file first, so a crash never leaves a half-written file in place of good ones.
 */
export async function writeCredentials(
  configDir: string,
  credentials: Credentials,
): Promise<string> {
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  const path = credentialsPath(configDir);
  const temporary = `${path}.${String(process.pid)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, {
    mode: 0o600,
    flag: "w",
  });
  // The mode given to writeFile applies only to a new file, and is masked by the umask.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return path;
}

/** Forgets the stored credentials; false when there were none. */
export async function removeCredentials(configDir: string): Promise<boolean> {
  const path = credentialsPath(configDir);
  const existed = (await readCredentials(configDir).catch(() => null)) !== undefined;
  await rm(path, { force: true });
  return existed;
}
