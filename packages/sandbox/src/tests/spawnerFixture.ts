import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BoxClient } from "@berth/box-protocol";
import { afterAll, beforeAll } from "vitest";
import { LocalBackend } from "../backends/local/localBackend.ts";
import type { Backend, BoxInfo, BoxMetadata, CreatedBox } from "../spawner/backend.ts";
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

export interface Racepoints {
  /** Runs after the real create returned, before the spawner records the box. */
  afterCreate?: (instanceId: string) => Promise<void>;
  /** Runs before connect returns (after record, before readiness and commit). */
  beforeConnect?: (instanceId: string) => Promise<void>;
  /** The create throws this instead of creating anything. */
  createFails?: Error;
  /** The next terminate throws (the box is left running), once. */
  terminateFailsOnce?: boolean;
  /** Runs after a capture's bytes all arrived, before the caller sees its result. */
  afterCapture?: (client: BoxClient) => Promise<void>;
  /** Runs after the box extracted an archive, before the caller sees the result. */
  afterHydrate?: (client: BoxClient) => Promise<void>;
}

/**
 * The real backend with racepoints: hooks that let a test act at an exact step of a spawn
 * (another actor bumps the epoch, the box dies) or make one call fail. Everything else is real.
 */
export class RacepointBackend implements Backend {
  readonly kind = "local" as const;
  readonly #inner: Backend;
  readonly #points: Racepoints;

  constructor(inner: Backend, points: Racepoints) {
    this.#inner = inner;
    this.#points = { ...points };
  }

  async create(input: { readonly metadata: BoxMetadata }): Promise<CreatedBox> {
    if (this.#points.createFails !== undefined) throw this.#points.createFails;
    const created = await this.#inner.create(input);
    await this.#points.afterCreate?.(created.instanceId);
    return created;
  }

  async connect(instanceId: string): Promise<BoxClient> {
    await this.#points.beforeConnect?.(instanceId);
    const client = await this.#inner.connect(instanceId);
    const points = this.#points;
    return {
      ...client,
      capture: async (input) => {
        const result = await client.capture(input);
        await points.afterCapture?.(client);
        return result;
      },
      hydrate: async (input) => {
        const result = await client.hydrate(input);
        await points.afterHydrate?.(client);
        return result;
      },
    };
  }

  async terminate(instanceId: string): Promise<void> {
    if (this.#points.terminateFailsOnce === true) {
      this.#points.terminateFailsOnce = false;
      throw new Error("the backend did not answer the terminate");
    }
    await this.#inner.terminate(instanceId);
  }

  resume(instanceId: string): Promise<void> {
    return this.#inner.resume(instanceId);
  }

  suspend(instanceId: string): Promise<void> {
    return this.#inner.suspend(instanceId);
  }

  inventory(): Promise<readonly BoxInfo[]> {
    return this.#inner.inventory();
  }
}
