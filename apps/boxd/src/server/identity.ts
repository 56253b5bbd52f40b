import { poolBindProof, tokensMatch } from "@berth/box-protocol";

/** Which box this boxd serves, and the token its clients present. */
export interface Binding {
  readonly instanceId: string;
  readonly token: string;
}

/**
 * What a bind did: `bound` — it bound this boxd now; `unchanged` — boxd was already bound to
 * exactly this (a retried bind whose reply was lost); `taken` — bound to something else;
 * `wrong_instance` — boxd was started for another instance (BOXD_INSTANCE_ID).
 */
export type BindOutcome = "bound" | "unchanged" | "taken" | "wrong_instance";

interface Pool {
  /** poolBindProof(poolKey, podUid), made once: the pool key itself is not kept. */
  readonly proof: string;
  /** BOXD_INSTANCE_ID when a pooled boxd was given it anyway: a bind must name it. */
  readonly instanceId: string | undefined;
}

/**
 * boxd's identity: bound from start (BOXD_TOKEN, _FD, _FILE), or — a warm-pool pod
 * (BOXD_POOL_KEY_FILE) — unbound until its one bind. Every request reads it afresh, so the
 * bind takes effect at once for every endpoint.
 */
export class BoxdIdentity {
  #binding: Binding | undefined;
  readonly #pool: Pool | undefined;

  private constructor(binding: Binding | undefined, pool: Pool | undefined) {
    this.#binding = binding;
    this.#pool = pool;
  }

  /** A boxd started with its token: bound for its whole life, nothing to bind. */
  static bound(binding: Binding): BoxdIdentity {
    return new BoxdIdentity(binding, undefined);
  }

  /** A warm-pool boxd: unbound until Berth binds it with the proof over this pod's uid. */
  static pooled(options: {
    readonly poolKey: string;
    readonly podUid: string;
    readonly instanceId?: string | undefined;
  }): BoxdIdentity {
    const proof = poolBindProof(options.poolKey, options.podUid);
    return new BoxdIdentity(undefined, { proof, instanceId: options.instanceId });
  }

  /** The binding requests are admitted by; undefined while a warm-pool boxd is unbound. */
  get binding(): Binding | undefined {
    return this.#binding;
  }

  /** The instance served, "" while unbound (what health and readiness report). */
  get instanceId(): string {
    return this.#binding?.instanceId ?? "";
  }

  /** True for a warm-pool boxd, bound yet or not: only it takes a bind. */
  get pooled(): boolean {
    return this.#pool !== undefined;
  }

  /** Whether `presented` is this pod's bind proof (constant-time); false for a token-mode boxd. */
  proofMatches(presented: string): boolean {
    // Compared even for a token-mode boxd's empty proof, so the time says nothing either way.
    return tokensMatch(presented, this.#pool?.proof ?? "") && this.#pool !== undefined;
  }

  /**
   * Binds once. Synchronous, with no await between the check and the set: of concurrent binds
   * exactly one finds boxd unbound, and the rest compare against what it bound.
   */
  bind(request: Binding): BindOutcome {
    if (this.#pool === undefined) return "taken";
    const current = this.#binding;
    if (current !== undefined) {
      const same =
        current.instanceId === request.instanceId && tokensMatch(request.token, current.token);
      return same ? "unchanged" : "taken";
    }
    if (this.#pool.instanceId !== undefined && this.#pool.instanceId !== request.instanceId) {
      return "wrong_instance";
    }
    this.#binding = { instanceId: request.instanceId, token: request.token };
    return "bound";
  }
}
