import type { BoxClient } from "@berth/box-protocol";
import type {
  ArchiveProgress,
  Backend,
  BoxConfinement,
  BoxInfo,
  BoxWrite,
  CreateBoxInput,
  CreatedBox,
  ReadyOptions,
} from "@berth/sandbox";

/**
 * When each phase of the operation being timed was first and last seen, in ms since `start`:
 * the archiver's and restorer's progress events (each phase's first and last always pass the
 * throttle) and the backend's create call. Enough to split a capture or a restore into steps.
 */
export class PhaseMarks {
  #origin = 0;
  readonly #first = new Map<string, number>();
  readonly #last = new Map<string, number>();

  /** Forgets every mark; answers the new origin (a performance.now() time). */
  start(): number {
    this.#origin = performance.now();
    this.#first.clear();
    this.#last.clear();
    return this.#origin;
  }

  note(name: string): void {
    const at = performance.now() - this.#origin;
    if (!this.#first.has(name)) this.#first.set(name, at);
    this.#last.set(name, at);
  }

  readonly onProgress = (progress: ArchiveProgress): void => {
    this.note(progress.phase);
  };

  first(name: string): number {
    return this.#first.get(name) ?? Number.NaN;
  }

  last(name: string): number {
    return this.#last.get(name) ?? Number.NaN;
  }
}

/** The local backend, with its `create` calls marked (`create` when called, `created` on return). */
export class MarkedBackend implements Backend {
  readonly kind: Backend["kind"];
  readonly #inner: Backend;
  readonly #marks: PhaseMarks;

  constructor(inner: Backend, marks: PhaseMarks) {
    this.kind = inner.kind;
    this.#inner = inner;
    this.#marks = marks;
  }

  async create(input: CreateBoxInput): Promise<CreatedBox> {
    this.#marks.note("create");
    const created = await this.#inner.create(input);
    this.#marks.note("created");
    return created;
  }

  resume(instanceId: string, write?: BoxWrite): Promise<BoxConfinement> {
    return this.#inner.resume(instanceId, write);
  }

  terminate(instanceId: string, write?: BoxWrite): Promise<void> {
    return this.#inner.terminate(instanceId, write);
  }

  suspend(instanceId: string, write?: BoxWrite): Promise<void> {
    return this.#inner.suspend(instanceId, write);
  }

  ready(instanceId: string, options: ReadyOptions): Promise<BoxClient> {
    return this.#inner.ready(instanceId, options);
  }

  connect(instanceId: string): Promise<BoxClient> {
    return this.#inner.connect(instanceId);
  }

  inventory(): Promise<readonly BoxInfo[]> {
    return this.#inner.inventory();
  }
}
