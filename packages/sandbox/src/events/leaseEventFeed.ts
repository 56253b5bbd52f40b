import type { DbClientOrTx } from "@berth/db";
import { z } from "zod";
import {
  readGroupFeed,
  type ArchiveTransfer,
  type LeaseEventRecord,
  type LeaseFeedRead,
  type LeaseGenerations,
} from "./leaseEventRows.ts";
import type { LeaseWakeup, LeaseWakeups } from "../services/leaseWakeups.ts";
import { LeaseWatch, LeaseWatchRegistry, SessionWatches } from "./leaseWatches.ts";
import { readSessionRoute, type SessionRoute } from "./sessionRouteRows.ts";
import {
  NotificationListener,
  notifiesAcrossProcesses,
  type ReconnectDelays,
} from "./notificationListener.ts";

/** The channel the lease_notify migration's triggers notify, with the lease id as payload. */
export const leaseEventsChannel = "berth_lease_events";
/** The channel a session's pointer moving notifies (session_route_notify), with its id. */
export const sessionRoutesChannel = "berth_session_routes";

/**
 * How subscribers are woken. `listen`: LISTEN/NOTIFY on one dedicated connection (polling only
 * while it is down). `poll`: re-read every interval (the embedded database, whose socket
 * clients share one session, so LISTEN there is not per process). `auto`: `poll` when
 * `SELECT version()` names PGlite, `listen` otherwise.
 */
export type LeaseEventFeedMode = "auto" | "listen" | "poll";

/** The knobs a process may set; the rest of the options are its resources. */
export interface LeaseEventFeedSettings {
  readonly mode?: LeaseEventFeedMode;
  /** How often a subscriber re-reads when nothing can wake it (polling, LISTEN down). */
  readonly pollIntervalMs?: number;
  readonly reconnect?: ReconnectDelays;
}

export interface LeaseEventFeedOptions extends LeaseEventFeedSettings {
  readonly db: DbClientOrTx;
  /** The database the LISTEN connection opens (the same one `db` reads). */
  readonly connectionString: string;
  /** The LISTEN connection was lost; the feed reconnects on its own. */
  readonly onListenError?: (error: unknown) => void;
}

/** What a subscriber receives, in order. */
export type LeaseFeedItem =
  | { readonly kind: "event"; readonly leaseId: string; readonly event: LeaseEventRecord }
  | ({ readonly kind: "generations"; readonly leaseId: string } & LeaseGenerations)
  | ({ readonly kind: "transfer"; readonly leaseId: string } & ArchiveTransfer)
  | ({ readonly kind: "route"; readonly sessionId: string } & SessionRoute);

const followSchema = z.object({
  workspaceId: z.uuid(),
  sandboxGroupId: z.uuid(),
  sessionId: z.uuid().optional(),
  afterId: z.bigint().min(0n).nullable(),
});

const routeWatchSchema = z.object({
  workspaceId: z.uuid(),
  sessionId: z.uuid(),
  activeEpoch: z.number().int().min(0),
});

/** Events read per round trip; a backlog is read in pages without waiting in between. */
const PAGE = 100;

/**
 * Live lease changes for any number of subscribers in one process, read from Postgres. Rows
 * are the truth and are read by id cursor; the process only decides when to re-read: on a
 * NOTIFY from the lease_events trigger, or on a timer. So any replica serves any subscriber,
 * and a missed wake-up delays an event but never loses one. Build one per process; close it
 * on shutdown. Nothing connects until the first subscriber arrives.
 */
export class LeaseEventFeed implements LeaseWakeups {
  readonly #db: DbClientOrTx;
  readonly #mode: LeaseEventFeedMode;
  readonly #pollIntervalMs: number;
  readonly #watches = new LeaseWatchRegistry();
  /** The same latches, keyed by session id: woken when that session's pointer moves. */
  readonly #routeWatches = new SessionWatches();
  readonly #listener: NotificationListener;
  #resolvedMode: Promise<"listen" | "poll"> | undefined;
  #closed = false;
  #following = 0;

  constructor(options: LeaseEventFeedOptions) {
    this.#db = options.db;
    this.#mode = options.mode ?? "auto";
    this.#pollIntervalMs = z
      .number()
      .int()
      .min(10)
      .max(60_000)
      .parse(options.pollIntervalMs ?? 500);
    this.#listener = new NotificationListener({
      connectionString: options.connectionString,
      channels: [leaseEventsChannel, sessionRoutesChannel],
      onNotification: (id, channel) => {
        if (channel === sessionRoutesChannel) this.#routeWatches.wake(id);
        else this.#watches.wake(id);
      },
      // Down: waiting subscribers switch to the timer. Up: they re-read whatever the outage hid.
      onListening: () => {
        this.#watches.wakeAll();
        this.#routeWatches.wakeAll();
      },
      ...(options.onListenError === undefined ? {} : { onError: options.onListenError }),
      ...(options.reconnect === undefined ? {} : { reconnect: options.reconnect }),
    });
  }

  /**
   * Subscribers this process serves now, counted once their first read is done: from then on
   * every change reaches them (tests wait for it before making one).
   */
  get subscribers(): number {
    return this.#following;
  }

  /**
   * The group's lease changes after `afterId`, oldest first, until `signal` aborts or the feed
   * closes. With `afterId` null it is a live tail: only events after the subscription began
   * (read history with `readLeaseEvents`, then follow from its last id to miss nothing). A
   * group without a lease yet is waited for; every event of its lease is then new.
   *
   * Generations are not lease events, so they come as their own item: once first (the
   * subscriber's baseline), then whenever a read finds them moved; so does the lease's archive
   * transfer (capture or restore progress), once it has one. Each is a snapshot of the
   * current value, not a log: a client that reconnects gets the current one again. With a
   * `sessionId`, so is the session's route (where its calls go; a hot-swap moves it): first,
   * then on every move. The moves themselves are logged in session_events (leases.timeline).
   */
  async *follow(input: {
    workspaceId: string;
    sandboxGroupId: string;
    sessionId?: string;
    afterId: bigint | null;
    signal: AbortSignal;
  }): AsyncGenerator<LeaseFeedItem, void, undefined> {
    const { workspaceId, sandboxGroupId, sessionId, afterId } = followSchema.parse(input);
    const { signal } = input;
    const mode = await this.#resolveMode();
    if (mode === "listen") this.#listener.start();
    // Registered before the first read, so a change committed during that read still wakes it.
    const watch = this.#watches.add(null);
    if (sessionId !== undefined) this.#routeWatches.add(sessionId, watch);
    let counted = false;
    try {
      let cursor = afterId;
      let shown: LeaseGenerations | null = null;
      let shownTransfer: ArchiveTransfer | null = null;
      let shownRoute: SessionRoute | null = null;
      while (!signal.aborted && !this.#closed) {
        const read = await this.#read({ workspaceId, sandboxGroupId, cursor, watch });
        if (!counted) {
          counted = true;
          this.#following += 1;
        }
        if (read !== null) {
          if (cursor === null) cursor = read.lastEventId ?? 0n;
          for (const event of read.events) {
            cursor = event.id;
            yield { kind: "event", leaseId: read.leaseId, event };
          }
          if (!sameGenerations(shown, read.generations)) {
            shown = read.generations;
            yield { kind: "generations", leaseId: read.leaseId, ...shown };
          }
          if (read.transfer !== null && !sameTransfer(shownTransfer, read.transfer)) {
            shownTransfer = read.transfer;
            yield { kind: "transfer", leaseId: read.leaseId, ...shownTransfer };
          }
        } else if (cursor === null) {
          cursor = 0n;
        }
        // After the lease's read: a first item means the live tail has begun, whatever it is.
        if (sessionId !== undefined) {
          const route = await readSessionRoute(this.#db, { workspaceId, sessionId });
          if (route !== null && route.activeEpoch !== shownRoute?.activeEpoch) {
            shownRoute = route;
            yield { kind: "route", sessionId, ...route };
          }
        }
        if (read !== null && read.events.length === PAGE) continue;
        await watch.next(signal, this.#waitLimitMs(mode));
      }
    } finally {
      this.#watches.remove(watch);
      if (sessionId !== undefined) this.#routeWatches.remove(sessionId, watch);
      if (counted) this.#following -= 1;
    }
  }

  /**
   * Resolves with the session's route once its pointer has left `activeEpoch` (at once if it
   * already has): an open terminal's end on its old target. Null when `signal` aborts, the feed
   * closes, or the session is gone.
   */
  async routeMoved(input: {
    workspaceId: string;
    sessionId: string;
    activeEpoch: number;
    signal: AbortSignal;
  }): Promise<SessionRoute | null> {
    const { workspaceId, sessionId, activeEpoch } = routeWatchSchema.parse(input);
    const { signal } = input;
    const mode = await this.#resolveMode();
    if (mode === "listen") this.#listener.start();
    const watch = new LeaseWatch(null);
    this.#routeWatches.add(sessionId, watch);
    try {
      while (!signal.aborted && !this.#closed) {
        const route = await readSessionRoute(this.#db, { workspaceId, sessionId });
        if (route === null) return null;
        if (route.activeEpoch !== activeEpoch) return route;
        await watch.next(signal, this.#waitLimitMs(mode));
      }
      return null;
    } finally {
      this.#routeWatches.remove(sessionId, watch);
    }
  }

  /**
   * Wakes a box call waiting for this lease to move (warming → warm, a drain ending): on its
   * NOTIFY while LISTEN is in effect, otherwise on the caller's poll interval.
   */
  async watchLease(leaseId: string): Promise<LeaseWakeup> {
    const mode = await this.#resolveMode();
    if (mode === "listen") this.#listener.start();
    const watch = this.#watches.add(leaseId);
    const never = new AbortController().signal;
    return {
      next: ({ maxWaitMs, pollMs }) => {
        const limit = this.#waitLimitMs(mode, pollMs);
        return watch.next(never, limit === null ? maxWaitMs : Math.min(limit, maxWaitMs));
      },
      [Symbol.dispose]: () => {
        this.#watches.remove(watch);
      },
    };
  }

  /** Stops the LISTEN connection; every subscriber ends at its next wake-up, which is now. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#watches.wakeAll();
    this.#routeWatches.wakeAll();
    await this.#listener.close();
  }

  async #read(input: {
    workspaceId: string;
    sandboxGroupId: string;
    cursor: bigint | null;
    watch: LeaseWatch;
  }): Promise<LeaseFeedRead | null> {
    const read = await readGroupFeed(this.#db, {
      workspaceId: input.workspaceId,
      sandboxGroupId: input.sandboxGroupId,
      afterId: input.cursor ?? 0n,
      // A live tail reads no events the first time: only where the log ends.
      limit: input.cursor === null ? 0 : PAGE,
    });
    if (read !== null && input.watch.key !== read.leaseId)
      this.#watches.retarget(input.watch, read.leaseId);
    return read;
  }

  /** Null (wait for a NOTIFY) only while LISTEN is in effect; otherwise the poll interval. */
  #waitLimitMs(mode: "listen" | "poll", pollMs = this.#pollIntervalMs): number | null {
    return mode === "listen" && this.#listener.listening ? null : pollMs;
  }

  #resolveMode(): Promise<"listen" | "poll"> {
    if (this.#resolvedMode !== undefined) return this.#resolvedMode;
    const resolved = this.#detectMode();
    this.#resolvedMode = resolved;
    // A failed probe (database down) is asked again by the next subscriber.
    resolved.catch(() => {
      if (this.#resolvedMode === resolved) this.#resolvedMode = undefined;
    });
    return resolved;
  }

  async #detectMode(): Promise<"listen" | "poll"> {
    switch (this.#mode) {
      case "listen":
      case "poll":
        return this.#mode;
      case "auto":
        return (await notifiesAcrossProcesses(this.#db)) ? "listen" : "poll";
    }
  }
}

function sameTransfer(a: ArchiveTransfer | null, b: ArchiveTransfer): boolean {
  return (
    a !== null &&
    a.operation === b.operation &&
    a.phase === b.phase &&
    a.bytesDone === b.bytesDone &&
    a.bytesTotal === b.bytesTotal &&
    a.at.getTime() === b.at.getTime()
  );
}

function sameGenerations(a: LeaseGenerations | null, b: LeaseGenerations): boolean {
  return (
    a !== null &&
    a.workspaceGeneration === b.workspaceGeneration &&
    a.archiveGeneration === b.archiveGeneration
  );
}
