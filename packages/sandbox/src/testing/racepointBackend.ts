import type { BoxClient } from "@berth/box-protocol";
import type {
  Backend,
  BoxConfinement,
  BoxInfo,
  BoxWrite,
  CreateBoxInput,
  CreatedBox,
  ReadyOptions,
} from "../spawner/backend.ts";

export interface Racepoints {
  /** Runs after the real create returned, before the spawner records the box. */
  afterCreate?: (instanceId: string) => Promise<void>;
  /**
   * Runs before connect or ready reaches the box (in a spawn: while the box is recorded, before
   * readiness and commit).
   */
  beforeConnect?: (instanceId: string) => Promise<void>;
  /** The create throws this instead of creating anything. */
  createFails?: Error;
  /** The readiness wait throws this: the box was made, and never served. */
  readyFails?: Error;
  /** The next terminate throws (the box is left running), once. */
  terminateFailsOnce?: boolean;
  /** Runs when a terminate is asked, before the box's backend is. */
  beforeTerminate?: (instanceId: string) => Promise<void>;
  /** Runs when a capture is asked of the box, before the box is asked. */
  beforeCapture?: (instanceId: string) => Promise<void>;
  /** Runs after a capture's bytes all arrived, before the caller sees its result. */
  afterCapture?: (client: BoxClient) => Promise<void>;
  /**
   * Runs once the first bytes of a streamed archive went to the box, before the rest is sent
   * (the box may die here, mid-hydrate).
   */
  midHydrate?: (instanceId: string) => Promise<void>;
  /** Runs after the box extracted an archive, before the caller sees the result. */
  afterHydrate?: (client: BoxClient) => Promise<void>;
  /** Runs after the box opened a terminal, before the caller sees it. */
  afterOpenTerminal?: (instanceId: string) => Promise<void>;
}

/**
 * The real backend with racepoints: hooks that let a test act at an exact step of a spawn
 * (another actor bumps the epoch, the box dies) or make one call fail. Everything else is real.
 * `arm` replaces the racepoints, for a backend a long-lived server was built with.
 */
export class RacepointBackend implements Backend {
  /** The wrapped backend's kind: a registry serves it for the leases naming that backend. */
  readonly kind: Backend["kind"];
  readonly #inner: Backend;
  #points: Racepoints;

  constructor(inner: Backend, points: Racepoints = {}) {
    this.kind = inner.kind;
    this.#inner = inner;
    this.#points = { ...points };
  }

  arm(points: Racepoints): void {
    this.#points = { ...points };
  }

  async create(input: CreateBoxInput): Promise<CreatedBox> {
    if (this.#points.createFails !== undefined) throw this.#points.createFails;
    const created = await this.#inner.create(input);
    await this.#points.afterCreate?.(created.instanceId);
    return created;
  }

  async ready(instanceId: string, options: ReadyOptions): Promise<BoxClient> {
    if (this.#points.readyFails !== undefined) throw this.#points.readyFails;
    await this.#points.beforeConnect?.(instanceId);
    return this.#armed(instanceId, await this.#inner.ready(instanceId, options));
  }

  async connect(instanceId: string): Promise<BoxClient> {
    await this.#points.beforeConnect?.(instanceId);
    return this.#armed(instanceId, await this.#inner.connect(instanceId));
  }

  #armed(instanceId: string, client: BoxClient): BoxClient {
    // Read when each call is made, so a re-armed backend applies to clients handed out before.
    const points = () => this.#points;
    return {
      ...client,
      capture: async (input) => {
        await points().beforeCapture?.(instanceId);
        const result = await client.capture(input);
        await points().afterCapture?.(client);
        return result;
      },
      hydrate: async (input) => {
        const mid = points().midHydrate;
        const body =
          mid === undefined || typeof input.body === "string" || input.body instanceof Uint8Array
            ? input.body
            : pausedAfterFirst(input.body, () => mid(instanceId));
        const result = await client.hydrate({ ...input, body });
        await points().afterHydrate?.(client);
        return result;
      },
      openTerminal: async (input) => {
        const result = await client.openTerminal(input);
        await points().afterOpenTerminal?.(instanceId);
        return result;
      },
    };
  }

  async terminate(instanceId: string, write?: BoxWrite): Promise<void> {
    if (this.#points.terminateFailsOnce === true) {
      this.#points = { ...this.#points, terminateFailsOnce: false };
      throw new Error("the backend did not answer the terminate");
    }
    await this.#points.beforeTerminate?.(instanceId);
    await this.#inner.terminate(instanceId, write);
  }

  resume(instanceId: string, write?: BoxWrite): Promise<BoxConfinement> {
    return this.#inner.resume(instanceId, write);
  }

  suspend(instanceId: string, write?: BoxWrite): Promise<void> {
    return this.#inner.suspend(instanceId, write);
  }

  inventory(): Promise<readonly BoxInfo[]> {
    return this.#inner.inventory();
  }
}

/** The same chunks, with `pause` awaited once the first was handed on. */
async function* pausedAfterFirst(
  body: AsyncIterable<Uint8Array>,
  pause: () => Promise<void>,
): AsyncGenerator<Uint8Array> {
  let first = true;
  for await (const chunk of body) {
    yield chunk;
    if (first) {
      first = false;
      await pause();
    }
  }
}
