import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { boxPids, killBox } from "../testing/boxProcesses.ts";

export { boxPids };

export const TEST_BOX_SECRET = "spawner-test-secret-0123456789abcdef";

/** The real local backend (bubblewrap when the machine has it; required under CI). */
export function localBackend(dataDir: string): LocalBackend {
  return new LocalBackend({
    dataDir,
    secret: TEST_BOX_SECRET,
    isolation: "auto",
  });
}

export async function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "berth-spawner-"));
}

/**
 * A local backend over a data folder of the test file's own: created before its tests, every box
 * terminated and the folder removed after them.
 */
export function useLocalBackend(): { readonly dataDir: string; readonly backend: LocalBackend } {
  let dataDir = "";
  let backend: LocalBackend | undefined;
  beforeAll(async () => {
    dataDir = await tempDataDir();
    backend = localBackend(dataDir);
  });
  afterAll(async () => {
    for (const box of (await backend?.inventory()) ?? []) await backend?.terminate(box.instanceId);
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get dataDir() {
      return dataDir;
    },
    get backend() {
      if (backend === undefined) throw new Error("useLocalBackend: read .backend inside a test");
      return backend;
    },
  };
}

export { killBox };

/** Whether every process of the box is gone within a few seconds (a parent may reap slowly). */
export async function boxProcessesGone(instanceId: string): Promise<boolean> {
  for (let i = 0; i < 50; i += 1) {
    if ((await boxPids(instanceId)).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

// The racepoint backend is a test double of the Backend port, so it lives beside the port's
// other doubles (`@berth/sandbox/testing`); spawner tests keep importing it from here.
export { RacepointBackend } from "../testing/racepointBackend.ts";
export type { Racepoints } from "../testing/racepointBackend.ts";
