import { randomUUID } from "node:crypto";
import type { MemberContext } from "./trpc.ts";

const PREFIX = "terminal:";

/** The lease holder an open terminal is: it keeps the box warm until the terminal ends. */
export function terminalHolder(id: string): string {
  return `${PREFIX}${id}`;
}

/** What became of a session's terminals on the group box when a swap moved it away. */
export interface TerminalsLeftBehind {
  /** Closed there, their holds on the group box released. */
  readonly ended: number;
  /** Still open (the group box did not answer): they hold it until their shells exit. */
  readonly leftOpen: number;
}

/**
 * After a swap from the group box to a machine: the session's terminals still open on the group
 * box are closed there and their holds released, so the box the session left can drain. A
 * terminal whose output is being streamed ends with `route_moved` by itself; this ends the ones
 * nobody is watching. The swap has committed by now, so a failure here is reported, not thrown.
 */
export async function endTerminalsLeftBehind(
  ctx: MemberContext,
  sessionId: string,
): Promise<TerminalsLeftBehind> {
  const session = await ctx.db.session.findFirst({
    where: { id: sessionId, workspaceId: ctx.workspaceId },
    select: { sandboxGroupId: true },
  });
  if (session === null) return { ended: 0, leftOpen: 0 };
  const held = await ctx.db.leaseHolder.findMany({
    where: {
      kind: "process",
      subjectId: sessionId,
      holderId: { startsWith: PREFIX },
      lease: { workspaceId: ctx.workspaceId, sandboxGroupId: session.sandboxGroupId },
    },
    select: { holderId: true },
  });
  if (held.length === 0) return { ended: 0, leftOpen: 0 };
  let ended = 0;
  await ctx.boxes
    .run(
      {
        workspaceId: ctx.workspaceId,
        sessionId,
        requestId: randomUUID(),
        operation: { name: "terminal.close", writes: false },
        route: "group",
      },
      async (handle) => {
        for (const { holderId } of held) {
          // Already gone (its stream closed it, or it exited): only its hold is left to release.
          await handle.box
            .closeTerminal({ id: holderId.slice(PREFIX.length) })
            .catch(() => undefined);
          await ctx.boxes.releaseProcess(handle.lease, holderId);
          ended += 1;
        }
      },
    )
    .catch(() => undefined);
  return { ended, leftOpen: held.length - ended };
}
