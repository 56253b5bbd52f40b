import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { tempFolder } from "./boxdProcess.ts";

/**
 * boxd's worker-thread module built as the bundle builds it: Node 20 cannot run its TypeScript
 * in a worker thread, so threaded paths are tested against this build.
 */
export async function buildFsThread(): Promise<URL> {
  const out = join(await tempFolder("fs-thread-"), "fsThread.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "../src/workspace/fsThread.ts")],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  return pathToFileURL(out);
}
