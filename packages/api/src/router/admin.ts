import { randomUUID } from "node:crypto";
import { swapSession, type SwapOutcome, type SwapTarget } from "@berth/sandbox";
import { idSchema } from "@berth/validators";
import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { writeAudit } from "../audit.ts";
import { endTerminalsLeftBehind } from "../terminalHolders.ts";
import { sessionInput } from "../boxCall.ts";
import type { RouterFixtures } from "../fixtures.ts";
import { adminProcedure, type MemberContext } from "../trpc.ts";

/** `group`: the session's own group box; otherwise an enrolled machine's id. */
const targetSchema = z.union([z.literal("group"), idSchema]);

export const adminRouter = {
  /**
   * Hot-swap (issue 41): points the session's work at an online enrolled machine of its
   * workspace, or back at its group box (woken first, a viewer-style attach held until the
   * swap commits). A compare-and-swap on `expectedEpoch` (the session's activeEpoch): of two
   * swaps at once exactly one wins, and the other is CONFLICT naming the current epoch.
   * Audited, and logged in the session's timeline (`leases.timeline`'s `swaps`). Swapped to a
   * machine, the session's terminals on the group box are closed (`terminals`: how many).
   */
  swap: adminProcedure
    .input(
      sessionInput.extend({
        target: targetSchema,
        expectedEpoch: z.number().int().min(0),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const target: SwapTarget =
        input.target === "group" ? { kind: "group" } : { kind: "machine", machineId: input.target };
      const swap = () => swapAudited(ctx, { ...input, target });
      // Back to the group box: it is woken first and held while the pointer moves, so the
      // reaper cannot drain it between the two; the swap itself runs inside that call.
      const outcome =
        target.kind === "group"
          ? await ctx.boxes.run(
              {
                workspaceId: ctx.workspaceId,
                sessionId: input.sessionId,
                requestId: randomUUID(),
                operation: { name: "admin.swap", writes: false },
                route: "group",
              },
              swap,
            )
          : await swap();
      const moved = answer(outcome, input.expectedEpoch);
      // Away from the group box: the session's terminals there end, watched or not.
      const terminals =
        target.kind === "machine"
          ? await endTerminalsLeftBehind(ctx, input.sessionId)
          : { ended: 0, leftOpen: 0 };
      return { ...moved, terminals };
    }),
} satisfies TRPCRouterRecord;

/** The compare-and-swap and, when it moved the pointer, its audit row, in one transaction. */
async function swapAudited(
  ctx: MemberContext,
  input: { sessionId: string; target: SwapTarget; expectedEpoch: number },
): Promise<SwapOutcome> {
  const now = await ctx.clock.now();
  return await ctx.db.$transaction(async (tx) => {
    const outcome = await swapSession(tx, {
      workspaceId: ctx.workspaceId,
      sessionId: input.sessionId,
      target: input.target,
      expectedEpoch: input.expectedEpoch,
      actor: `${ctx.actor.kind}:${ctx.actor.id}`,
      now,
    });
    if (outcome.outcome === "swapped")
      await writeAudit(tx, {
        workspaceId: ctx.workspaceId,
        actor: ctx.actor,
        action: "session.swap",
        target: { kind: "session", id: input.sessionId },
        before: { activeSandboxId: outcome.from, activeEpoch: input.expectedEpoch },
        after: { activeSandboxId: outcome.activeSandboxId, activeEpoch: outcome.activeEpoch },
        at: now,
      });
    return outcome;
  });
}

function answer(outcome: SwapOutcome, expectedEpoch: number) {
  switch (outcome.outcome) {
    case "swapped":
      return {
        activeSandboxId: outcome.activeSandboxId,
        activeEpoch: outcome.activeEpoch,
        from: outcome.from,
      };
    case "lost_race":
      throw new TRPCError({
        code: "CONFLICT",
        message: `The session's pointer is at epoch ${String(outcome.activeEpoch)}, not ${String(expectedEpoch)} (${outcome.activeSandboxId === null ? "its group box" : `machine ${outcome.activeSandboxId}`}): another swap came first. Read it and swap again if you still mean to.`,
      });
    case "session_not_found":
      throw new TRPCError({ code: "NOT_FOUND", message: "No such session in this workspace." });
    case "machine_not_found":
      throw new TRPCError({ code: "NOT_FOUND", message: "No such machine in this workspace." });
    case "machine_offline":
      throw new TRPCError({
        code: "PRECONDITION_FAILED",
        message:
          "The machine is offline (or revoked): start its agent, then swap. Nothing was moved.",
      });
    default:
      return assertNever(outcome);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected swap outcome ${JSON.stringify(value)}`);
}

export const adminFixtures: RouterFixtures<typeof adminRouter> = {
  // To the group box: the fixture session's box is woken and the pointer bumped.
  swap: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({
      workspaceId: w.workspaceId,
      sessionId: w.boxSessionId,
      target: "group",
      expectedEpoch: 0,
    }),
  },
};
