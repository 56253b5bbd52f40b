import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * This repository's root, from this file's place (packages/sandbox/src/backends/local/). Only
 * where this file runs as itself: a bundler moves it (the web server passes the entry in).
 */
function repoRootFromHere(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");
}

/** boxd's entry: the bundle `pnpm turbo run build` makes (apps/boxd/dist/main.mjs). */
export function defaultBoxdEntry(repoRoot: string = repoRootFromHere()): string {
  return join(repoRoot, "apps/boxd/dist/main.mjs");
}

const BUILD_HINT = "run `pnpm turbo run build` (`npm start` builds first)";

/**
 * Why `entry` cannot run a box, if it cannot: a box runs boxd only from a built bundle (its
 * folder is what the box sees at /opt/berth), never its TypeScript sources through tsx, and a
 * bundle older than the sources it was built from (when they are beside it, as in a checkout)
 * would run other code than the repository holds.
 */
export function bundleProblemOf(entry: string): string | undefined {
  if (entry.endsWith(".ts"))
    return `boxd's entry ${entry} is TypeScript: a box runs only boxd's built bundle; ${BUILD_HINT}`;
  if (!existsSync(entry)) return `boxd's bundle ${entry} is missing: ${BUILD_HINT}`;
  // <repo>/apps/boxd/dist/main.mjs: the sources are apps/boxd/src and packages/box-protocol/src.
  const boxdFolder = dirname(dirname(entry));
  const sourceFolders = [
    join(boxdFolder, "src"),
    join(boxdFolder, "../../packages/box-protocol/src"),
  ];
  if (!sourceFolders.every((folder) => existsSync(folder))) return undefined;
  const built = statSync(entry).mtimeMs;
  const stale = sourceFolders.some((folder) => newestMtime(folder) > built);
  return stale ? `boxd's bundle ${entry} is older than its sources: ${BUILD_HINT}` : undefined;
}

function newestMtime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}
