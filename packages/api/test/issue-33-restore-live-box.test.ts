// Issue 33 item 8: an admin restores a revision while the session's box is live. The restore
// fences the box, captures it (the writes not archived yet become an archive revision of their
// own), stops it and selects the revision under the epoch it started from, and leaves the box
// cold: the next call restores the revision and verifies it. The real API over Postgres, with
// real local boxes and the filesystem archive store.
import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { boxPids } from "@berth/sandbox/testing";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { createCallerFactory } from "../src/trpc.ts";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { callerAs, headersFor, type Credential } from "./support/testApi.ts";
import { seedWorkspace, workspaceRowHashes, type SeededWorkspace } from "./support/world.ts";

const suite = useApiSuite();
const BOX_TEST_MS = 180_000;

type Caller = Awaited<ReturnType<typeof callerAs>>;

interface Transfer {
  readonly operation: string;
  readonly phase: string;
  readonly bytesDone: number;
  readonly bytesTotal: number | null;
}

/** The transfer items events.session delivers while it is followed, as the dashboard sees them. */
async function followTransfers(credential: Credential, scope: object) {
  const controller = new AbortController();
  const caller = createCallerFactory(suite.api.router)(
    await suite.api.createContext({ headers: headersFor(credential) }),
    { signal: controller.signal },
  );
  const seen: Transfer[] = [];
  const items = await caller.events.session(scope as { workspaceId: string; sessionId: string });
  const pumping = (async () => {
    try {
      for await (const item of items)
        if ("kind" in item && item.kind === "transfer") seen.push(item);
    } catch {
      // Aborted: the follower is done.
    }
  })();
  return {
    seen,
    /** Waits (bounded) until a transfer matching `wanted` was delivered. */
    async sawOne(wanted: (item: Transfer) => boolean): Promise<boolean> {
      for (let i = 0; i < 500 && !seen.some(wanted); i += 1) await sleep(10);
      return seen.some(wanted);
    },
    async stop() {
      controller.abort();
      await pumping;
    },
  };
}

/** The `data.berth` a mapped domain error carries to clients. */
function berthOf(error: TRPCError): { code?: unknown; retryable?: unknown } {
  const cause = error.cause as { data?: { code?: unknown; retryable?: unknown } } | undefined;
  return cause?.data ?? {};
}

async function leaseOf(world: SeededWorkspace, sessionId: string) {
  const session = await suite.db.session.findUniqueOrThrow({ where: { id: sessionId } });
  return suite.db.sandboxLease.findUniqueOrThrow({
    where: {
      workspaceId_sandboxGroupId: {
        workspaceId: world.workspaceId,
        sandboxGroupId: session.sandboxGroupId,
      },
    },
  });
}

/** Waits until the lease shows `done` (a step another call took, seen in Postgres). */
async function until(
  world: SeededWorkspace,
  sessionId: string,
  done: (lease: Awaited<ReturnType<typeof leaseOf>>) => boolean,
) {
  for (let i = 0; i < 1_000; i += 1) {
    const lease = await leaseOf(world, sessionId);
    if (done(lease)) return lease;
    await sleep(10);
  }
  throw new Error("the lease never reached the expected state");
}

async function gone(path: string): Promise<boolean> {
  return access(path).then(
    () => false,
    () => true,
  );
}

const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37 + 11) % 256));

/** A box with revision R1 captured, then writes the archive does not hold yet. */
async function liveBoxWithUnarchivedWrites(
  owner: Caller,
  on: { workspaceId: string; sessionId: string },
) {
  await owner.fs.write({ ...on, path: "a.txt", content: "one\n" });
  await owner.fs.write({
    ...on,
    path: "bin.dat",
    content: binary.toString("base64"),
    encoding: "base64",
  });
  const r1 = await owner.archives.capture(on);
  expect(r1.archiveComplete).toBe(true);
  await owner.fs.write({ ...on, path: "a.txt", content: "two\n" });
  await owner.fs.write({ ...on, path: "later.txt", content: "written after the capture\n" });
  await owner.fs.remove({ ...on, path: "bin.dat" });
  expect((await owner.archives.list(on)).archiveComplete).toBe(false);
  return r1;
}

describe("issue 33: recovery.restoreRevision of a live box", () => {
  it(
    "captures the writes not yet archived as a revision of their own, stops the box, selects the asked revision; the next call serves it byte-identical",
    async () => {
      const world = await seedWorkspace(suite.api, suite.db, "restore-live");
      const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
      const on = { workspaceId: world.workspaceId, sessionId: world.boxSessionId };
      const r1 = await liveBoxWithUnarchivedWrites(owner, on);
      const live = await leaseOf(world, on.sessionId);
      const instanceId = live.instanceId ?? "";
      expect(instanceId).not.toBe("");
      const transfers = await followTransfers({ cookie: world.owner.cookie }, on);

      const restored = await owner.recovery.restoreRevision({ ...on, revision: r1.revision });

      expect(restored).toEqual({
        liveness: "cold",
        epoch: live.epoch + 1,
        restoreStatus: "pending",
        selectedRevision: r1.revision,
        workspaceGeneration: live.workspaceGeneration + 1,
      });
      // The box is stopped: no process left, its folder gone.
      expect(await boxPids(instanceId)).toEqual([]);
      expect(await gone(join(suite.dataDir, "boxes", instanceId))).toBe(true);
      // Nothing was lost by going back: the live workspace is an archive revision of its own.
      const { archives, selectedRevision } = await owner.archives.list(on);
      expect(selectedRevision).toBe(r1.revision);
      const captured = archives.find((a) => a.revision !== r1.revision);
      expect(captured).toMatchObject({ generation: live.workspaceGeneration, status: "available" });
      // Its capture reached the session's followers as progress (the dashboard's and the CLI's bar).
      expect(
        await transfers.sawOne((t) => t.operation === "capture" && t.phase === "capturing"),
      ).toBe(true);

      // The next call wakes the box at R1, verified, byte-identical; with its restore's progress.
      expect((await owner.fs.read({ ...on, path: "a.txt" })).content).toBe("one\n");
      const bin = await owner.fs.read({ ...on, path: "bin.dat", encoding: "base64" });
      expect(Buffer.from(bin.content, "base64").equals(binary)).toBe(true);
      expect(await codeOf(owner.fs.read({ ...on, path: "later.txt" }))).toBe("NOT_FOUND");
      expect(await owner.leases.get(on)).toMatchObject({
        restoreStatus: "ready",
        selectedRevision: r1.revision,
      });
      expect(
        await transfers.sawOne((t) => t.operation === "restore" && t.phase === "hydrating"),
      ).toBe(true);
      await transfers.stop();

      // And the writes the restore went back over come back from their own revision.
      await owner.recovery.restoreRevision({ ...on, revision: captured?.revision ?? "" });
      expect((await owner.fs.read({ ...on, path: "a.txt" })).content).toBe("two\n");
      expect((await owner.fs.read({ ...on, path: "later.txt" })).content).toBe(
        "written after the capture\n",
      );
      expect(await codeOf(owner.fs.read({ ...on, path: "bin.dat" }))).toBe("NOT_FOUND");
      const audit = await owner.audit.list({ workspaceId: world.workspaceId, limit: 10 });
      expect(
        audit.events.filter((e) => e.action === "lease.restore_revision").map((e) => e.actorId),
      ).toEqual([world.owner.id, world.owner.id]);
    },
    BOX_TEST_MS,
  );

  it(
    "a write racing the restore is never lost: one in flight is waited for and captured; one arriving after the fence runs on the restored workspace",
    async () => {
      const world = await seedWorkspace(suite.api, suite.db, "restore-race");
      const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
      const member = await callerAs(suite.api, { token: world.memberToken });
      const on = { workspaceId: world.workspaceId, sessionId: world.boxSessionId };
      const r1 = await liveBoxWithUnarchivedWrites(owner, on);
      const live = await leaseOf(world, on.sessionId);
      const workspace = join(suite.dataDir, "boxes", live.instanceId ?? "", "workspace");

      // A command that writes once the test lets it: admitted now, settled only after the fence.
      const inFlight = member.exec.run({
        ...on,
        argv: ["sh", "-c", "while [ ! -e go ]; do sleep 0.02; done; echo slow > slow.txt"],
      });
      await until(world, on.sessionId, (l) => l.workspaceGeneration > live.workspaceGeneration);
      const restoring = owner.recovery.restoreRevision({ ...on, revision: r1.revision });
      await until(world, on.sessionId, (l) => l.restoreClaimId !== null);
      // Past the fence: this write is admitted nowhere yet; it waits for the restore.
      const late = member.fs.write({ ...on, path: "late.txt", content: "after the fence\n" });
      await writeFile(join(workspace, "go"), "");

      expect(await inFlight).toMatchObject({ exitCode: 0 });
      const restored = await restoring;
      const wrote = await late;
      expect(wrote.generation).toBeGreaterThan(restored.workspaceGeneration);

      // The late write landed on the restored workspace (R1), where it is read back.
      expect((await member.fs.read({ ...on, path: "late.txt" })).content).toBe("after the fence\n");
      expect((await member.fs.read({ ...on, path: "a.txt" })).content).toBe("one\n");
      expect(await codeOf(member.fs.read({ ...on, path: "slow.txt" }))).toBe("NOT_FOUND");
      // The in-flight one is in the capture the restore made of the live box.
      const captured = (await owner.archives.list(on)).archives.find(
        (a) => a.generation === restored.workspaceGeneration - 1,
      );
      expect(captured).toBeDefined();
      await owner.recovery.restoreRevision({ ...on, revision: captured?.revision ?? "" });
      expect((await member.fs.read({ ...on, path: "slow.txt" })).content).toBe("slow\n");
      expect((await member.fs.read({ ...on, path: "later.txt" })).content).toBe(
        "written after the capture\n",
      );
    },
    BOX_TEST_MS,
  );

  it(
    "two admins restoring from the same epoch at once: one wins, the other is refused by name (CONFLICT), and only one restore is audited",
    async () => {
      const world = await seedWorkspace(suite.api, suite.db, "restore-twice");
      const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
      const token = await callerAs(suite.api, { token: world.adminToken });
      const on = { workspaceId: world.workspaceId, sessionId: world.boxSessionId };
      const r1 = await liveBoxWithUnarchivedWrites(owner, on);
      const { epoch } = await leaseOf(world, on.sessionId);
      const asked = { ...on, revision: r1.revision, expectedEpoch: epoch };

      const results = await Promise.allSettled([
        owner.recovery.restoreRevision(asked),
        token.recovery.restoreRevision(asked),
      ]);

      const won = results.filter((r) => r.status === "fulfilled");
      const refused = results.flatMap((r): unknown[] =>
        r.status === "rejected" ? [r.reason] : [],
      );
      expect(won).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const [error] = refused;
      if (!(error instanceof TRPCError)) throw error;
      expect(error.code).toBe("CONFLICT");
      // Named: another restore holds the box, or (if the winner already finished) the epoch moved.
      expect(["restore_in_progress", "stale_epoch"]).toContain(berthOf(error).code);
      const lease = await leaseOf(world, on.sessionId);
      expect(lease).toMatchObject({
        liveness: "cold",
        epoch: epoch + 1,
        selectedRevision: r1.revision,
      });
      expect(
        await suite.db.auditEvent.count({
          where: { workspaceId: world.workspaceId, action: "lease.restore_revision" },
        }),
      ).toBe(1);
      // An epoch the box has left is refused outright, changing nothing.
      const before = await workspaceRowHashes(suite.db, world.workspaceId);
      expect(await codeOf(owner.recovery.restoreRevision(asked))).toBe("CONFLICT");
      expect(await workspaceRowHashes(suite.db, world.workspaceId)).toEqual(before);
    },
    BOX_TEST_MS,
  );

  it(
    "a member (cookie or token) is refused FORBIDDEN, and the live box is left as it was",
    async () => {
      const world = await seedWorkspace(suite.api, suite.db, "restore-member");
      const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
      const on = { workspaceId: world.workspaceId, sessionId: world.boxSessionId };
      const r1 = await liveBoxWithUnarchivedWrites(owner, on);
      // Once the answered writes have settled and released, nothing moves on its own.
      await suite.api.settled();
      const before = await workspaceRowHashes(suite.db, world.workspaceId);
      for (const credential of [{ cookie: world.member.cookie }, { token: world.memberToken }]) {
        const member = await callerAs(suite.api, credential);
        expect(
          await codeOf(member.recovery.restoreRevision({ ...on, revision: r1.revision })),
        ).toBe("FORBIDDEN");
      }
      expect(await workspaceRowHashes(suite.db, world.workspaceId)).toEqual(before);
      expect((await owner.fs.read({ ...on, path: "later.txt" })).content).toBe(
        "written after the capture\n",
      );
    },
    BOX_TEST_MS,
  );
});
