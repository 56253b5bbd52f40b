import type { CliWorld } from "./servedApi.ts";

/** The session's lease row (its box's instance, generations). */
export async function leaseOf(world: CliWorld, sessionId: string) {
  const session = await world.db.session.findUniqueOrThrow({ where: { id: sessionId } });
  return world.db.sandboxLease.findFirstOrThrow({
    where: { workspaceId: session.workspaceId, sandboxGroupId: session.sandboxGroupId },
  });
}
