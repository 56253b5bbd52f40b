/**
 * Hot-swap (issue 41): moves a session's pointer between its group box (null) and an enrolled
 * machine of its workspace. One compare-and-swap on `active_epoch`, so of two swaps at once
 * exactly one wins; the winner's move is logged in session_events in the same transaction.
 */
import type { DbClientOrTx } from "@berth/db";
import { readMachineRoute } from "../machines/machineRoute.ts";
import { inTransaction } from "../machines/machineTransaction.ts";

/** Where a swap sends the session's work. */
export type SwapTarget =
  { readonly kind: "group" } | { readonly kind: "machine"; readonly machineId: string };

export type SwapOutcome =
  | {
      readonly outcome: "swapped";
      /** Where it pointed before (null: the group box). */
      readonly from: string | null;
      readonly activeSandboxId: string | null;
      readonly activeEpoch: number;
    }
  /** Another swap moved the pointer first (or `expectedEpoch` was stale): nothing changed. */
  | {
      readonly outcome: "lost_race";
      readonly activeSandboxId: string | null;
      readonly activeEpoch: number;
    }
  | { readonly outcome: "session_not_found" }
  | { readonly outcome: "machine_not_found" }
  /** The machine is revoked or its agent is not connected: a swap there would strand the work. */
  | { readonly outcome: "machine_offline" };

export async function swapSession(
  db: DbClientOrTx,
  input: {
    readonly workspaceId: string;
    readonly sessionId: string;
    readonly target: SwapTarget;
    readonly expectedEpoch: number;
    /** Who swapped, as the event log names it (`user:<id>`, `token:<id>`). */
    readonly actor: string;
    readonly now: Date;
  },
): Promise<SwapOutcome> {
  const { workspaceId, sessionId, target } = input;
  if (target.kind === "machine") {
    const route = await readMachineRoute(
      db,
      { workspaceId, machineId: target.machineId },
      input.now,
    );
    if (route.kind === "not_found") return { outcome: "machine_not_found" };
    if (route.kind === "offline") return { outcome: "machine_offline" };
  }
  const to = target.kind === "group" ? null : target.machineId;
  return await inTransaction(db, async (tx) => {
    const session = await tx.session.findFirst({
      where: { id: sessionId, workspaceId },
      select: { activeSandboxId: true, activeEpoch: true },
    });
    if (session === null) return { outcome: "session_not_found" };
    if (session.activeEpoch !== input.expectedEpoch) return { outcome: "lost_race", ...session };
    // The compare-and-swap: it counts 0 when another swap committed since the read above.
    const { count } = await tx.session.updateMany({
      where: { id: sessionId, workspaceId, activeEpoch: input.expectedEpoch },
      data: { activeSandboxId: to, activeEpoch: { increment: 1 } },
    });
    if (count === 0) {
      const now = await tx.session.findFirst({
        where: { id: sessionId, workspaceId },
        select: { activeSandboxId: true, activeEpoch: true },
      });
      return now === null ? { outcome: "session_not_found" } : { outcome: "lost_race", ...now };
    }
    const activeEpoch = input.expectedEpoch + 1;
    await tx.sessionEvent.create({
      data: {
        workspaceId,
        sessionId,
        kind: "swap",
        fromTarget: session.activeSandboxId,
        toTarget: to,
        activeEpoch,
        actor: input.actor,
        at: input.now,
      },
    });
    return { outcome: "swapped", from: session.activeSandboxId, activeSandboxId: to, activeEpoch };
  });
}

/** One move of a session's pointer, as the timeline shows it beside the lease's events. */
export interface SessionSwapEvent {
  readonly id: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly activeEpoch: number;
  readonly actor: string;
  readonly at: Date;
}

/** The session's swaps, oldest first (at most `limit`, the latest ones). */
export async function readSessionSwaps(
  db: DbClientOrTx,
  scope: { readonly workspaceId: string; readonly sessionId: string; readonly limit: number },
): Promise<SessionSwapEvent[]> {
  const rows = await db.sessionEvent.findMany({
    where: { workspaceId: scope.workspaceId, sessionId: scope.sessionId, kind: "swap" },
    orderBy: { id: "desc" },
    take: scope.limit,
  });
  return rows.reverse().map((row) => ({
    id: row.id.toString(),
    from: row.fromTarget,
    to: row.toTarget,
    activeEpoch: row.activeEpoch,
    actor: row.actor,
    at: row.at,
  }));
}
