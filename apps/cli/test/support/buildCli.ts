import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** Vitest globalSetup: bundles dist/berth.mjs from the sources, so a clean checkout tests what it builds. */
export default async function setup(): Promise<void> {
  const script = fileURLToPath(new URL("../../scripts/bundle.mjs", import.meta.url));
  await promisify(execFile)(process.execPath, [script]);
}
