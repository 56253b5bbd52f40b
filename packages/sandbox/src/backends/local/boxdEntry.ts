import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * This repository's root, from this file's place (packages/sandbox/src/backends/local/). Only
 * where this file runs as itself: a bundler moves it (the web server passes the entry in).
 */
function repoRootFromHere(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");
}

/**
 * boxd's entry: the bundle `pnpm turbo run build` makes (about 0.3 s to listen, against about
 * 0.9 s through tsx), unless it is missing or older than a source file; then the TypeScript
 * source, run through tsx.
 */
export function defaultBoxdEntry(repoRoot: string = repoRootFromHere()): string {
  const sourceEntry = join(repoRoot, "apps/boxd/src/main.ts");
  const bundledEntry = join(repoRoot, "apps/boxd/dist/main.mjs");
  // The sources the bundle is built from: a bundle older than any of them is stale.
  const sourceFolders = [
    join(repoRoot, "apps/boxd/src"),
    join(repoRoot, "packages/box-protocol/src"),
  ];
  const bundled = mtimeOf(bundledEntry);
  if (bundled === undefined) return sourceEntry;
  return sourceFolders.every((folder) => newestMtime(folder) <= bundled)
    ? bundledEntry
    : sourceEntry;
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function newestMtime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, mtimeOf(join(entry.parentPath, entry.name)) ?? 0);
  }
  return newest;
}
