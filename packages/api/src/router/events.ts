import type { LeaseFeedItem } from "@berth/sandbox/events";
import { idSchema } from "@berth/validators";
import { tracked, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import type { RouterFixtures } from "../fixtures.ts";
import { sessionLeaseKey } from "../sessionScope.ts";
import { memberProcedure } from "../trpc.ts";
import { eventIdSchema } from "./leases.ts";

// Live updates over SSE. Every item comes from Postgres rows (read by id cursor, woken by
// LISTEN/NOTIFY or polling: @berth/sandbox/events), so any web replica serves any subscriber
// and a reconnecting client resumes with the last id it saw, from whichever replica it reaches.

/**
 * A lease event is tracked (its id is the SSE event id, so the client's `lastEventId` resumes
 * after it); a generations item is a snapshot of the lease's current generations (sent first,
 * then on every change), untracked because a reconnect simply receives the current one again;
 * so is a transfer item (the capture or restore under way, or the last one, with its time),
 * and a route item (where the session's calls go: its group box, or a machine an admin swapped
 * it to; sent first and on every swap, whose log is leases.timeline's `swaps`).
 */
async function* sessionStream(items: AsyncIterable<LeaseFeedItem>) {
  for await (const item of items) {
    switch (item.kind) {
      case "event": {
        const { event } = item;
        yield tracked(String(event.id), { kind: "event" as const, ...event });
        break;
      }
      case "generations":
        yield {
          kind: "generations" as const,
          workspaceGeneration: item.workspaceGeneration,
          archiveGeneration: item.archiveGeneration,
        };
        break;
      case "transfer":
        yield {
          kind: "transfer" as const,
          operation: item.operation,
          phase: item.phase,
          bytesDone: item.bytesDone,
          bytesTotal: item.bytesTotal,
          at: item.at,
        };
        break;
      case "route":
        yield {
          kind: "route" as const,
          activeEpoch: item.activeEpoch,
          routedTo: item.routedTo,
        };
        break;
    }
  }
}

export const eventsRouter = {
  /**
   * A session's lease changes after `lastEventId` (without one: from now on; read history with
   * leases.timeline and pass its last id to miss nothing). Membership and the session are
   * checked when the subscription starts; it ends when the client disconnects.
   */
  session: memberProcedure
    .input(z.object({ sessionId: idSchema, lastEventId: eventIdSchema.nullish() }))
    .subscription(async ({ ctx, input, signal }) => {
      const key = await sessionLeaseKey(ctx, input.sessionId);
      return sessionStream(
        ctx.leaseEvents.follow({
          ...key.workspaceId_sandboxGroupId,
          sessionId: input.sessionId,
          afterId: input.lastEventId ?? null,
          // A server-side caller has no connection to lose: it ends the iteration itself.
          signal: signal ?? new AbortController().signal,
        }),
      );
    }),
} satisfies TRPCRouterRecord;

export const eventsFixtures: RouterFixtures<typeof eventsRouter> = {
  session: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.sessionId }),
  },
};
