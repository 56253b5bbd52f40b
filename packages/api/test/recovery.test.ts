import { createDbClient, type DbClient } from "@berth/db";
import { useTestDatabase } from "@berth/testkit";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BerthApi } from "../src/index.ts";
import { callerAs, createTestApi } from "./support/testApi.ts";
import { seedWorkspace } from "./support/world.ts";

const database = useTestDatabase();
let api: BerthApi;
let db: DbClient;

beforeAll(() => {
  api = createTestApi(database.current.url);
  db = createDbClient({ connectionString: database.current.url, maxConnections: 2 });
});

afterAll(async () => {
  await db.$disconnect();
  await api.close();
});

describe("recovery actions, audited with the caller's identity", () => {
  it("start fresh by a signed-in owner, then restore a revision by an admin token", async () => {
    const world = await seedWorkspace(api, db, "recover");
    const owner = await callerAs(api, { cookie: world.owner.cookie });
    const fresh = await owner.recovery.startFresh({
      workspaceId: world.workspaceId,
      sessionId: world.sessionId,
    });
    expect(fresh).toMatchObject({
      liveness: "cold",
      restoreStatus: "not_required",
      selectedRevision: null,
    });

    const token = await db.apiToken.findFirstOrThrow({
      where: { workspaceId: world.workspaceId, role: "admin" },
    });
    const asToken = await callerAs(api, { token: world.adminToken });
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

  it("refuses to restore under a live box, and an unknown revision, changing nothing", async () => {
    const world = await seedWorkspace(api, db, "live");
    const owner = await callerAs(api, { cookie: world.owner.cookie });
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => "answered",
        (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
      );
    expect(
      await code(
        owner.recovery.restoreRevision({
          workspaceId: world.workspaceId,
          sessionId: world.sessionId,
          revision: "f".repeat(64),
        }),
      ),
    ).toBe("NOT_FOUND");
    await db.sandboxLease.updateMany({
      where: { workspaceId: world.workspaceId },
      data: { liveness: "warm", instanceId: "box-1", restoreStatus: "ready" },
    });
    const before = await db.sandboxLease.findFirstOrThrow({
      where: { workspaceId: world.workspaceId },
    });
    expect(
      await code(
        owner.recovery.restoreRevision({
          workspaceId: world.workspaceId,
          sessionId: world.sessionId,
          revision: world.archiveRevision,
        }),
      ),
    ).toBe("PRECONDITION_FAILED");
    expect(
      await db.sandboxLease.findFirstOrThrow({ where: { workspaceId: world.workspaceId } }),
    ).toEqual(before);
  });
});
