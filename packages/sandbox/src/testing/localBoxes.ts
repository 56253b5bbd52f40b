import { rm } from "node:fs/promises";
import { LocalBackend } from "../backends/local/localBackend.ts";

/**
 * Stops every local box kept in `dataDir` (boxes outlive the API that started them, by design)
 * and removes the folder: what a suite, a bench or a test server does when it is done.
 */
export async function removeLocalBoxes(options: {
  dataDir: string;
  secret: string;
}): Promise<void> {
  const backend = new LocalBackend({ ...options, isolation: "auto" });
  for (const box of await backend.inventory()) await backend.terminate(box.instanceId);
  await rm(options.dataDir, { recursive: true, force: true });
}
