import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

export interface BuildInfo {
  readonly version: string;
  readonly gitRevision: string;
}

/** Berth's version (the root package.json) and the checkout's git revision, if it is one. */
export async function readBuildInfo(repoRoot: string): Promise<BuildInfo> {
  const manifest = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
    version?: string;
  };
  const gitRevision = await promisify(execFile)("git", ["rev-parse", "--short=12", "HEAD"], {
    cwd: repoRoot,
  })
    .then(({ stdout }) => stdout.trim())
    .catch(() => "unknown");
  return { version: manifest.version ?? "unknown", gitRevision };
}
