import {
  openTerminalRequestSchema,
  terminalIdRequestSchema,
  terminalInputRequestSchema,
  terminalResizeRequestSchema,
  type TerminalEvent,
} from "@berth/box-protocol";
import type { BoxHandle } from "@berth/sandbox";
import type { LeaseEventFeed, SessionRoute } from "@berth/sandbox/events";
import { randomUUID } from "node:crypto";
import { tracked, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { onBox, sessionInput, withGeneration } from "../boxCall.ts";
import type { RouterFixtures } from "../fixtures.ts";
import { terminalHolder } from "../terminalHolders.ts";
import { memberProcedure, toTRPCError } from "../trpc.ts";

export const terminalRouter = {
  /** Opens a shell in the box; it holds the box (a `process` holder) until closed or exited. */
  open: memberProcedure
    .input(sessionInput.extend(openTerminalRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "terminal.open", writes: false }, async (box, request, handle) => {
        const terminal = await box.openTerminal(request);
        try {
          await ctx.boxes.holdProcess(handle, {
            sessionId: input.sessionId,
            holderId: terminalHolder(terminal.id),
          });
        } catch (error) {
          await box.closeTerminal({ id: terminal.id }).catch(() => undefined);
          throw error;
        }
        // On a machine (a swapped session) there is no group lease, so no epoch.
        return {
          ...terminal,
          epoch: handle.lease?.epoch ?? null,
          routedTo: handle.routedTo,
          routeEpoch: handle.routeEpoch,
        };
      }),
    ),
  /** Keystrokes: what a shell runs may change the workspace, so input is admitted as a write. */
  write: memberProcedure
    .input(sessionInput.extend(terminalInputRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "terminal.write", writes: true }, async (box, request, handle) =>
        withGeneration(await box.writeTerminal(request), handle),
      ),
    ),
  resize: memberProcedure
    .input(sessionInput.extend(terminalResizeRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "terminal.resize", writes: false }, (box, request) =>
        box.resizeTerminal(request),
      ),
    ),
  close: memberProcedure
    .input(sessionInput.extend(terminalIdRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "terminal.close", writes: false }, async (box, request, handle) => {
        const closed = await box.closeTerminal(request);
        await ctx.boxes.releaseProcess(handle.lease, terminalHolder(request.id));
        return closed;
      }),
    ),
  /**
   * The terminal's output as server-sent events, each tracked by its sequence number: a client
   * that reconnects with its last event id receives exactly what it missed (or a `gap` event
   * when the box's replay buffer no longer holds it). Ends with the terminal's `exit`, or with
   * `route_moved` when an admin swaps the session elsewhere: the terminal is closed on the
   * target it ran on (the session's calls go to the new one), and a new one opens there.
   */
  output: memberProcedure
    .input(
      sessionInput.extend({
        id: terminalIdRequestSchema.shape.id,
        lastEventId: z.string().regex(/^\d+$/).nullish(),
      }),
    )
    .subscription(async function* ({ ctx, input, signal }) {
      const queue = new EventQueue();
      const since = Number(input.lastEventId ?? "0");
      const attached = onBox(
        ctx,
        { input, name: "terminal.output", writes: false, stream: true },
        async (box, _request, handle) => {
          const connection = await box.attachTerminal({
            id: input.id,
            since,
            onEvent: (event) => {
              queue.push(event);
            },
          });
          const stop = () => {
            void connection.close();
          };
          signal?.addEventListener("abort", stop, { once: true });
          const watching = new AbortController();
          const moved = routeLeaves(ctx.leaseEvents, {
            workspaceId: input.workspaceId,
            sessionId: input.sessionId,
            handle,
            signal: watching.signal,
          }).then(
            (route) => {
              if (route === null) return;
              queue.push({ type: "route_moved", ...route });
              stop();
            },
            // The database unreadable: the stream goes on unwatched (a swap away still ends the
            // terminal, by the swap's own sweep of the group box) rather than failing the reader.
            () => undefined,
          );
          await connection.closed;
          watching.abort();
          await moved;
          signal?.removeEventListener("abort", stop);
          if (queue.movedAway) await box.closeTerminal({ id: input.id }).catch(() => undefined);
          if (queue.sawExit || queue.movedAway)
            await ctx.boxes.releaseProcess(handle.lease, terminalHolder(input.id));
        },
      ).finally(() => {
        queue.end();
      });
      // A client that leaves mid-stream never reaches the `await` below: handled either way.
      attached.catch(() => undefined);
      let lastSeq = since;
      try {
        for await (const event of queue) {
          if (event.type === "output") lastSeq = event.seq;
          if (event.type === "gap") lastSeq = event.toSeq;
          yield tracked(String(lastSeq), event);
          if (event.type === "exit" || event.type === "route_moved") break;
        }
        await attached;
      } catch (error) {
        // A stream's errors arrive after the procedure's middleware returned: mapped here.
        throw toTRPCError(error);
      }
    }),
} satisfies TRPCRouterRecord;

/**
 * Resolves with the session's route once it points away from where the terminal runs; null when
 * `signal` aborts. A swap onto the target it already runs on (a new epoch, the same place)
 * leaves it open: its shell is still where the session's calls go.
 */
async function routeLeaves(
  feed: LeaseEventFeed,
  at: { workspaceId: string; sessionId: string; handle: BoxHandle; signal: AbortSignal },
): Promise<SessionRoute | null> {
  const { handle, ...scope } = at;
  let activeEpoch = handle.routeEpoch;
  for (;;) {
    const route = await feed.routeMoved({ ...scope, activeEpoch });
    if (route === null) return null;
    const { routedTo } = route;
    if (routedTo.kind !== handle.routedTo.kind || routedTo.id !== handle.routedTo.id) return route;
    activeEpoch = route.activeEpoch;
  }
}

/**
 * What `terminal.output` streams: the box's terminal events, and the last one a swap sends (the
 * session's route now; the terminal was closed on the target it ran on).
 */
export type TerminalStreamEvent = TerminalEvent | ({ readonly type: "route_moved" } & SessionRoute);

/** Events from the box's callback, handed to the subscription's loop in order. */
class EventQueue implements AsyncIterable<TerminalStreamEvent> {
  readonly #items: TerminalStreamEvent[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  sawExit = false;
  movedAway = false;

  push(event: TerminalStreamEvent): void {
    // Nothing after the end: a box's last chunks racing a swap would follow `route_moved`.
    if (this.sawExit || this.movedAway) return;
    if (event.type === "exit") this.sawExit = true;
    if (event.type === "route_moved") this.movedAway = true;
    this.#items.push(event);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TerminalStreamEvent> {
    for (;;) {
      const next = this.#items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}

function on(w: { workspaceId: string; boxSessionId: string }) {
  return { workspaceId: w.workspaceId, sessionId: w.boxSessionId };
}

// The matrix opens no real terminal for the others to act on: their ids name none, so the
// rightful caller's box answers terminal_not_found (test/terminal.test.ts runs real terminals).
export const terminalFixtures: RouterFixtures<typeof terminalRouter> = {
  open: { access: "member", scope: "tenant", input: (w) => on(w) },
  write: {
    access: "member",
    scope: "tenant",
    rightfulAnswer: "terminal_not_found",
    input: (w) => ({ ...on(w), id: randomUUID(), data: "ls\n" }),
  },
  resize: {
    access: "member",
    scope: "tenant",
    rightfulAnswer: "terminal_not_found",
    input: (w) => ({ ...on(w), id: randomUUID(), cols: 100, rows: 30 }),
  },
  close: {
    access: "member",
    scope: "tenant",
    rightfulAnswer: "terminal_not_found",
    input: (w) => ({ ...on(w), id: randomUUID() }),
  },
  output: {
    access: "member",
    scope: "tenant",
    rightfulAnswer: "terminal_not_found",
    input: (w) => ({ ...on(w), id: randomUUID() }),
  },
};
