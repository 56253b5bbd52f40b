import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * BERTH_SECRET: from the environment, or — for the one-machine default — a random key kept in the
 * data folder (mode 0600), made on the first start. Box tokens derive from it and are never stored.
 */
export async function resolveSecret(options: {
  fromEnv: string | undefined;
  dataDir: string;
}): Promise<string> {
  if (options.fromEnv !== undefined) return options.fromEnv;
  const path = join(options.dataDir, "secret");
  const existing = await readFile(path, "utf8").catch(() => "");
  if (existing.trim().length >= 32) return existing.trim();
  await mkdir(options.dataDir, { recursive: true });
  const secret = randomBytes(32).toString("hex");
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
