import type { Backend } from "./backend.ts";
import { localExecutionProfile, type ExecutionProfile } from "./executionProfile.ts";

/** Every kind of backend a session (and so its lease) may name: the `backend` column's CHECK. */
export const backendKinds = ["local", "kubernetes"] as const;
export type BackendKind = (typeof backendKinds)[number];

/**
 * A lease (or session) names its backend; nothing else of it decides where its box lives.
 */
export interface NamesBackend {
  readonly backend: BackendKind;
}

/**
 * The backend a session or lease names is not configured in this process: refused before
 * anything is written (sessions.create), or at a box call on a lease another installation's
 * configuration made. Not retryable: the same call fails until an operator configures it.
 */
export class BackendNotConfiguredError extends Error {
  override readonly name = "BackendNotConfiguredError";
  readonly code = "backend_not_configured" as const;
  readonly backend: BackendKind;
  readonly configured: readonly BackendKind[];

  constructor(options: { backend: BackendKind; configured: readonly BackendKind[] }) {
    super(
      `The ${options.backend} backend is not configured on this server (configured: ` +
        `${options.configured.join(", ")}). Set BERTH_BACKEND=${options.backend} to configure it, ` +
        `or name a configured backend.`,
    );
    this.backend = options.backend;
    this.configured = options.configured;
  }
}

/**
 * The backends this process can reach, by kind: every spawn, drain, restore, sweep and connect
 * asks it for the backend the lease names (`backendFor`), so a lease never meets another
 * backend's box. Built from env in one place (backendsFromEnv.ts) for api, worker and launcher.
 */
export class BackendRegistry {
  readonly #backends: ReadonlyMap<BackendKind, Backend>;
  readonly #profiles: { readonly [kind in BackendKind]?: ExecutionProfile | undefined };

  /**
   * @param profiles what each backend's new boxes run; a local backend's default is
   *   `localExecutionProfile`, a Kubernetes backend must be given one (its template and image)
   */
  constructor(
    backends: { readonly [kind in BackendKind]?: Backend | undefined },
    profiles: { readonly [kind in BackendKind]?: ExecutionProfile | undefined } = {},
  ) {
    this.#backends = new Map(
      backendKinds.flatMap((kind) => {
        const backend = backends[kind];
        return backend === undefined ? [] : [[kind, backend] as const];
      }),
    );
    this.#profiles = profiles;
    for (const kind of this.#backends.keys()) this.#profileOf(kind);
  }

  /** One backend under its own kind: what a test or bench over one backend needs. */
  static of(backend: Backend, profile?: ExecutionProfile): BackendRegistry {
    return new BackendRegistry({ [backend.kind]: backend }, { [backend.kind]: profile });
  }

  /** The configured kinds, in the order of `backendKinds`. */
  kinds(): readonly BackendKind[] {
    return [...this.#backends.keys()];
  }

  isConfigured(kind: BackendKind): boolean {
    return this.#backends.has(kind);
  }

  /** Every configured backend, with its kind: the orphan sweep inventories each. */
  entries(): readonly (readonly [BackendKind, Backend])[] {
    return [...this.#backends.entries()];
  }

  /** The backend the lease (or session) names; refused when it is not configured here. */
  backendFor(named: NamesBackend): Backend {
    const backend = this.#backends.get(named.backend);
    if (backend === undefined)
      throw new BackendNotConfiguredError({ backend: named.backend, configured: this.kinds() });
    return backend;
  }

  /**
   * The execution profile the lease's box is created with: its backend's configured one (one per
   * backend until sessions choose templates).
   */
  profileFor(named: NamesBackend): ExecutionProfile {
    this.backendFor(named);
    return this.#profileOf(named.backend);
  }

  #profileOf(kind: BackendKind): ExecutionProfile {
    const profile = this.#profiles[kind];
    if (profile !== undefined) return profile;
    switch (kind) {
      case "local":
        return localExecutionProfile;
      case "kubernetes":
        throw new Error("a Kubernetes backend is configured with its execution profile");
    }
  }

  /** Refuses a backend this process cannot serve, before anything is written for it. */
  requireConfigured(kind: BackendKind): void {
    this.backendFor({ backend: kind });
  }
}
