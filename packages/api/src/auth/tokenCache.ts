import type { DbClient, MembershipRole } from "@berth/db";
import { NotificationListener, notifiesAcrossProcesses } from "@berth/sandbox/events";

/** The channel the credentials_notify migration's triggers notify. */
export const credentialsChannel = "berth_credentials";

/** How the cache's LISTEN connection shows in pg_stat_activity. */
export const credentialsListenerName = "berth-credentials";

/** A token as its lookup verified it: enough to answer its next calls without the database. */
export interface VerifiedToken {
  readonly tokenId: string;
  readonly userId: string;
  readonly workspaceId: string;
  readonly role: MembershipRole;
  readonly expiresAt: Date | null;
  /** The clock's time of the lookup, in ms. */
  readonly verifiedAtMs: number;
}

export interface TokenCacheOptions {
  readonly db: DbClient;
  readonly connectionString: string;
  /** A cached token is looked up again after this long (and its last use written). */
  readonly maxAgeMs?: number;
  readonly maxEntries?: number;
}

/**
 * Verified API tokens, so a script's calls skip the token's round trip. It is trusted only
 * while its LISTEN connection is up: every change to a token or a membership notifies it
 * (the credentials_notify triggers) and it forgets everything, on every replica, as soon as the
 * notification lands; the process that made the change forgets before it answers
 * (`forget`). Losing the connection forgets too, and nothing is cached until it is back.
 * A lookup that raced a notification is not cached: the generation it began at has passed.
 */
export class TokenCache {
  readonly #db: DbClient;
  readonly #listener: NotificationListener;
  readonly #maxAgeMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, VerifiedToken>();
  #generation = 0;
  #enabled: Promise<boolean> | undefined;

  constructor(options: TokenCacheOptions) {
    this.#db = options.db;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#listener = new NotificationListener({
      connectionString: options.connectionString,
      channels: [credentialsChannel],
      applicationName: credentialsListenerName,
      onNotification: () => {
        this.forget();
      },
      // Up or down, whatever changed while it was down was never heard: forget it all.
      onListening: () => {
        this.forget();
      },
    });
  }

  /** True while cached tokens are trusted (tests wait for it before counting on the cache). */
  get trusted(): boolean {
    return this.#listener.listening;
  }

  /** The token verified under `hash` within the last maxAgeMs, if the cache is trusted. */
  get(hash: string, nowMs: number): VerifiedToken | null {
    if (!this.#listener.listening) return null;
    const found = this.#entries.get(hash);
    if (found === undefined) return null;
    if (nowMs - found.verifiedAtMs < this.#maxAgeMs) return found;
    this.#entries.delete(hash);
    return null;
  }

  /** Call before a lookup; pass what it answers to `put`. Starts listening on first use. */
  async begin(): Promise<number> {
    if (await this.#isEnabled()) this.#listener.start();
    return this.#generation;
  }

  /** Keeps a lookup's token, unless something changed since its `begin`. */
  put(hash: string, generation: number, token: VerifiedToken): void {
    if (generation !== this.#generation || !this.#listener.listening) return;
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(hash, token);
  }

  /** Forgets every token: something they were verified against may have changed. */
  forget(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  async close(): Promise<void> {
    this.forget();
    await this.#listener.close();
  }

  /** Only where a NOTIFY reaches this process: not on the embedded database. */
  #isEnabled(): Promise<boolean> {
    if (this.#enabled !== undefined) return this.#enabled;
    const probe = notifiesAcrossProcesses(this.#db);
    this.#enabled = probe;
    // A failed probe (database down) is asked again by the next lookup.
    probe.catch(() => {
      if (this.#enabled === probe) this.#enabled = undefined;
    });
    return probe;
  }
}
