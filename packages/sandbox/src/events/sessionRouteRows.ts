import type { DbClientOrTx } from "@berth/db";
import type { RoutedTo } from "../routing/routedTo.ts";

/** Where a session's calls go now (hot-swap moves it), at the epoch that fences the move. */
export interface SessionRoute {
  readonly activeEpoch: number;
  readonly routedTo: RoutedTo;
}

/** The session's route, or null when the session is not in the workspace (deleted meanwhile). */
export async function readSessionRoute(
  db: DbClientOrTx,
  scope: { readonly workspaceId: string; readonly sessionId: string },
): Promise<SessionRoute | null> {
  const session = await db.session.findFirst({
    where: { id: scope.sessionId, workspaceId: scope.workspaceId },
    select: { activeEpoch: true, activeSandboxId: true, sandboxGroupId: true },
  });
  if (session === null) return null;
  return {
    activeEpoch: session.activeEpoch,
    routedTo:
      session.activeSandboxId === null
        ? { kind: "group", id: session.sandboxGroupId }
        : { kind: "machine", id: session.activeSandboxId },
  };
}
