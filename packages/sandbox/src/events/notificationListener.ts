import type { DbClientOrTx } from "@berth/db";
import pg from "pg";

/** How long to wait before reconnecting: doubles from `minMs` up to `maxMs`, reset on success. */
export interface ReconnectDelays {
  readonly minMs: number;
  readonly maxMs: number;
}

export interface NotificationListenerOptions {
  readonly connectionString: string;
  /** Plain identifiers: LISTEN takes no bound parameter. One connection listens on them all. */
  readonly channels: readonly [string, ...string[]];
  readonly onNotification: (payload: string, channel: string) => void;
  /** True once LISTEN is in effect; false when the connection is lost (or closed). */
  readonly onListening: (listening: boolean) => void;
  /** A lost connection; the listener reconnects on its own. */
  readonly onError?: (error: unknown) => void;
  readonly reconnect?: ReconnectDelays;
  /** How the connection shows in pg_stat_activity (default: listenerApplicationName). */
  readonly applicationName?: string;
}

/**
 * Whether a NOTIFY reaches other processes' LISTEN connections. Not on the embedded database:
 * its socket clients share one session, so LISTEN there is not per process.
 */
export async function notifiesAcrossProcesses(db: DbClientOrTx): Promise<boolean> {
  const rows = await db.$queryRaw<{ version: string }[]>`SELECT version() AS version`;
  return rows[0]?.version.includes("PGlite") !== true;
}

/** What Postgres shows as this connection's application_name (to find it in pg_stat_activity). */
export const listenerApplicationName = "berth-lease-events";

/**
 * One dedicated connection that LISTENs on a channel, reconnecting (with backoff) whenever it
 * is lost. LISTEN needs a session of its own: a pooled connection would hand the subscription
 * to whichever query borrows it next, and drop it when the pool recycles the connection.
 */
export class NotificationListener {
  readonly #options: NotificationListenerOptions;
  readonly #delays: ReconnectDelays;
  #client: pg.Client | null = null;
  #listening = false;
  #started = false;
  #closed = false;
  #delayMs: number;
  #retry: NodeJS.Timeout | undefined;

  constructor(options: NotificationListenerOptions) {
    for (const channel of options.channels)
      if (!/^[a-z_][a-z0-9_]*$/.test(channel))
        throw new Error(`Refusing channel name ${channel}: use a plain lower-case identifier`);
    this.#options = options;
    this.#delays = options.reconnect ?? { minMs: 100, maxMs: 5_000 };
    this.#delayMs = this.#delays.minMs;
  }

  get listening(): boolean {
    return this.#listening;
  }

  /** Connects once; later calls do nothing. Connection failures are retried, never thrown. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#connect();
  }

  /** Ends the connection and stops reconnecting. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    this.#setListening(false);
    await client?.end().catch(() => undefined);
  }

  #connect(): void {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#options.connectionString,
      application_name: this.#options.applicationName ?? listenerApplicationName,
    });
    this.#client = client;
    client.on("notification", (message) => {
      if (this.#options.channels.includes(message.channel) && message.payload !== undefined)
        this.#options.onNotification(message.payload, message.channel);
    });
    client.on("error", (error) => {
      this.#lost(client, error);
    });
    client.on("end", () => {
      this.#lost(client, new Error("the LISTEN connection ended"));
    });
    client
      .connect()
      .then(() =>
        client.query(this.#options.channels.map((channel) => `LISTEN ${channel};`).join(" ")),
      )
      .then(
        () => {
          if (this.#client !== client) return;
          this.#delayMs = this.#delays.minMs;
          this.#setListening(true);
        },
        (error: unknown) => {
          this.#lost(client, error);
        },
      );
  }

  /** Handles a connection's loss once (error and end both report it), then reconnects. */
  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = null;
    // A broken client may still emit; with no listener an 'error' event would crash the process.
    client.removeAllListeners();
    client.on("error", () => undefined);
    client.end().catch(() => undefined);
    this.#setListening(false);
    if (this.#closed) return;
    this.#options.onError?.(error);
    this.#retry = setTimeout(() => {
      this.#connect();
    }, this.#delayMs);
    this.#retry.unref();
    this.#delayMs = Math.min(this.#delayMs * 2, this.#delays.maxMs);
  }

  #setListening(listening: boolean): void {
    if (this.#listening === listening) return;
    this.#listening = listening;
    this.#options.onListening(listening);
  }
}
