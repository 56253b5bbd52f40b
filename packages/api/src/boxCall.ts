import { randomUUID } from "node:crypto";
import type { BoxClient } from "@berth/box-protocol";
import type { BoxHandle, RoutedTo } from "@berth/sandbox";
import { idSchema } from "@berth/validators";
import { z } from "zod";
import { requireOwnPages, type MemberContext } from "./trpc.ts";

/** Every box procedure names the session whose box it runs on. */
export const sessionInput = z.object({ sessionId: idSchema });

/**
 * Runs one operation on a session of the caller's workspace, through box services (holder,
 * spawn or wait, routing step, admission for writes). The session is looked up with the
 * caller's workspace in the lease SQL itself: another workspace's session is NOT_FOUND.
 *
 * A box call by cookie must come from Berth's own pages even when it only reads: reading wakes
 * the box (a lease, a process, a restore), which another site's page must not make a signed-in
 * browser do with a GET it can send (an image, a link).
 */
export function onBox<I extends { workspaceId: string; sessionId: string }, T>(
  ctx: MemberContext,
  /** `stream`: see BoxCall's — never run again on a pointer that moved under it. */
  call: { input: I; name: string; writes: boolean; stream?: boolean },
  body: (
    box: BoxClient,
    request: Omit<I, "workspaceId" | "sessionId">,
    handle: BoxHandle,
  ) => Promise<T>,
): Promise<T> {
  requireOwnPages(
    ctx,
    `Cross-site request refused: ${call.name} reaches the session's box, so a signed-in browser may call it only from Berth's own pages (they send Sec-Fetch-Site or Origin); a script uses an API token (Authorization: Bearer …).`,
  );
  return ctx.boxes.run(
    {
      workspaceId: ctx.workspaceId,
      sessionId: call.input.sessionId,
      requestId: randomUUID(),
      operation: { name: call.name, writes: call.writes },
      ...(call.stream === true ? { stream: true } : {}),
    },
    (handle) => body(handle.box, boxRequest(call.input), handle),
  );
}

/** What boxd is asked: the procedure's input without the scope it was routed by. */
function boxRequest<I extends { workspaceId: string; sessionId: string }>(
  input: I,
): Omit<I, "workspaceId" | "sessionId"> {
  return Object.fromEntries(
    Object.entries(input).filter(([key]) => key !== "workspaceId" && key !== "sessionId"),
  ) as Omit<I, "workspaceId" | "sessionId">;
}

/**
 * A write's answer with where it landed (`routedTo`: the group box or an enrolled machine) and
 * the workspace generation it was admitted at — what the dashboard shows beside each save and a
 * client compares with `archiveGeneration`; null on a machine, whose writes never advance the
 * group lease's generations. It names the target the write reached, so nobody writes it twice.
 */
export function withGeneration<T extends object>(
  result: T,
  handle: BoxHandle,
): T & { generation: number | null; routedTo: RoutedTo } {
  if (handle.routedTo.kind === "group" && handle.generation === null)
    throw new Error("withGeneration is for admitted writes");
  return { ...result, generation: handle.generation, routedTo: handle.routedTo };
}
