import { describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { seedWorkspace } from "./support/world.ts";

const suite = useApiSuite();

describe("recovery actions, audited with the caller's identity", () => {
  it("start fresh by a signed-in owner, then restore a revision by an admin token", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "recover");
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    const fresh = await owner.recovery.startFresh({
      workspaceId: world.workspaceId,
      sessionId: world.sessionId,
    });
    expect(fresh).toMatchObject({
      liveness: "cold",
      restoreStatus: "not_required",
      selectedRevision: null,
    });

    const token = await suite.db.apiToken.findFirstOrThrow({
      where: { workspaceId: world.workspaceId, role: "admin" },
    });
    const asToken = await callerAs(suite.api, { token: world.adminToken });
    const restored = await asToken.recovery.restoreRevision({
      workspaceId: world.workspaceId,
      sessionId: world.sessionId,
      revision: world.archiveRevision,
    });
    expect(restored).toMatchObject({
      restoreStatus: "pending",
      selectedRevision: world.archiveRevision,
    });

    const { events } = await owner.audit.list({ workspaceId: world.workspaceId, limit: 2 });
    expect(events.map((e) => [e.actorKind, e.actorId])).toEqual([
      ["token", token.id],
      ["user", world.owner.id],
    ]);
  });

  it("refuses an unknown revision, on a blocked lease and under a live box, changing nothing", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "live");
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    expect(
      await codeOf(
        owner.recovery.restoreRevision({
          workspaceId: world.workspaceId,
          sessionId: world.sessionId,
          revision: "f".repeat(64),
        }),
      ),
    ).toBe("NOT_FOUND");
    await suite.db.sandboxLease.updateMany({
      where: { workspaceId: world.workspaceId },
      data: { liveness: "warm", instanceId: "box-1", restoreStatus: "ready" },
    });
    const before = await suite.db.sandboxLease.findFirstOrThrow({
      where: { workspaceId: world.workspaceId },
    });
    // A live box is fenced only for a revision that exists: this one is refused before anything.
    expect(
      await codeOf(
        owner.recovery.restoreRevision({
          workspaceId: world.workspaceId,
          sessionId: world.sessionId,
          revision: "f".repeat(64),
        }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await suite.db.sandboxLease.findFirstOrThrow({ where: { workspaceId: world.workspaceId } }),
    ).toEqual(before);
  });
});
