import type { ApiContext } from "../trpc.ts";

/**
 * Whether the caller may see how Berth is deployed: the database's URL and server version, and
 * every later health detail (archive store, backends, pools). Those tell an attacker where to
 * aim, so they go only to someone who runs a workspace — a signed-in admin or owner of any
 * workspace, or an API token whose role (capped by its user's) is admin or owner. Everyone else,
 * anonymous callers and plain members included, sees only what is running.
 */
export async function seesDeploymentDetails(ctx: ApiContext): Promise<boolean> {
  const caller = ctx.caller;
  switch (caller.kind) {
    case "anonymous":
      return false;
    case "token":
      return caller.role !== "member";
    case "user": {
      const managed = await ctx.db.membership.findFirst({
        where: { userId: caller.userId, role: { in: ["admin", "owner"] } },
        select: { workspaceId: true },
      });
      return managed !== null;
    }
  }
}
