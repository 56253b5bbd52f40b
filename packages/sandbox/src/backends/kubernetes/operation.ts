/**
 * One deadline per operation (spec/kubernetes.md §7.1): an operation (allocate a Sandbox, wait
 * for it, delete it) starts one clock, and every request it makes — retries included — spends
 * that clock; a retry never starts a fresh one. Each request is further bounded by the client's
 * per-request timeout, and the caller's signal aborts everything at once.
 *
 * Time here is real time on purpose: these bounds measure the transport (a silent server, a
 * stalled socket), which no injected clock can stand in for.
 */

/** What aborted a request: the caller, the operation's deadline, or the per-request timeout. */
export type AbortCause =
  | { readonly by: "caller"; readonly reason: unknown }
  | { readonly by: "deadline"; readonly label: string; readonly ms: number }
  | { readonly by: "request-timeout"; readonly ms: number };

export interface OperationOptions {
  /** Names the operation in a timeout's message, e.g. `allocate berth-…`. */
  readonly label: string;
  /** The whole operation's budget, in ms (a positive safe integer). */
  readonly timeoutMs: number;
  /** The caller's abort: it ends the operation at once, whatever is in flight or sleeping. */
  readonly signal?: AbortSignal | undefined;
}

/** One request's abort signal, and what fired it. */
export interface RequestScope {
  readonly signal: AbortSignal;
  cause(): AbortCause | undefined;
}

export class Operation {
  readonly label: string;
  readonly timeoutMs: number;
  readonly #caller: AbortSignal | undefined;
  readonly #deadline: AbortSignal;
  readonly #endsAt: number;
  /** Aborts when the caller aborts or the deadline passes: every request and sleep listens. */
  readonly signal: AbortSignal;

  constructor(options: OperationOptions) {
    if (!Number.isSafeInteger(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError(
        `operation ${options.label}: timeoutMs must be a positive safe integer (got ${String(options.timeoutMs)})`,
      );
    }
    this.label = options.label;
    this.timeoutMs = options.timeoutMs;
    this.#caller = options.signal;
    this.#endsAt = performance.now() + options.timeoutMs;
    this.#deadline = AbortSignal.timeout(options.timeoutMs);
    this.signal =
      options.signal === undefined
        ? this.#deadline
        : AbortSignal.any([options.signal, this.#deadline]);
  }

  /** What is left of the budget, in ms (0 once spent). */
  remainingMs(): number {
    return Math.max(0, Math.floor(this.#endsAt - performance.now()));
  }

  /** Why the operation can go no further, if it cannot: the caller's abort wins. */
  cause(): AbortCause | undefined {
    if (this.#caller?.aborted === true) return { by: "caller", reason: this.#caller.reason };
    if (this.#deadline.aborted || this.remainingMs() === 0)
      return { by: "deadline", label: this.label, ms: this.timeoutMs };
    return undefined;
  }

  /**
   * The signal for one request: the operation's, narrowed by `requestTimeoutMs`. A request can
   * never outlive the operation, so the timeout it reports is whichever bound is shorter.
   */
  request(requestTimeoutMs: number): RequestScope {
    const timeout = AbortSignal.timeout(requestTimeoutMs);
    const signal = AbortSignal.any([this.signal, timeout]);
    return {
      signal,
      // Only a signal that fired explains a failure: a refused connection that happens to end
      // at the deadline is still a refused connection.
      cause: () => {
        if (!signal.aborted) return undefined;
        if (this.#caller?.aborted === true) return { by: "caller", reason: this.#caller.reason };
        if (this.#deadline.aborted)
          return { by: "deadline", label: this.label, ms: this.timeoutMs };
        return { by: "request-timeout", ms: requestTimeoutMs };
      },
    };
  }

  /**
   * Waits `ms` inside the budget (a retry's pause). Rejects with the operation's signal reason
   * as soon as the caller aborts or the deadline passes; callers check `remainingMs()` first so
   * a pause that cannot end before the deadline is never started.
   */
  sleep(ms: number): Promise<void> {
    const { signal } = this;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const done = (): void => {
        signal.removeEventListener("abort", aborted);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const aborted = (): void => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      signal.addEventListener("abort", aborted, { once: true });
    });
  }
}

/**
 * Starts an operation's clock.
 *
 * @example
 * const op = startOperation({ label: `allocate ${name}`, timeoutMs: 30_000, signal });
 * await client.get(op, SANDBOX, name); // spends op's budget, bounded by requestTimeoutMs
 */
export function startOperation(options: OperationOptions): Operation {
  return new Operation(options);
}
