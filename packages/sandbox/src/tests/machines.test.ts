import type { DbClient } from "@berth/db";
import { describe, expect, it } from "vitest";
import { MACHINE_ONLINE_WINDOW_MS, readMachines } from "../machines/index.ts";
import { seedSession, useLeaseWorld, warmLease, type LeaseWorld } from "./leaseFixture.ts";

const world = useLeaseWorld();
const NOW = new Date("2026-11-30T12:00:00Z");

/** The world's db, counting every statement it sends (raw or not). */
function counted(w: LeaseWorld): { db: DbClient; readonly queries: number } {
  let queries = 0;
  const db = w.db.$extends({
    query: {
      $allOperations({ args, query }) {
        queries += 1;
        return query(args);
      },
    },
  }) as unknown as DbClient;
  return {
    db,
    get queries() {
      return queries;
    },
  };
}

describe("readMachines", () => {
  it("lists a never-started box cold and a warm one with its lease's figures", async () => {
    const w = world.current;
    const cold = await seedSession(w.db);
    const [machine] = await readMachines(w.db, cold, NOW);
    expect(machine).toEqual({
      sandboxId: cold.sandboxGroupId,
      sessionId: cold.sessionId,
      backend: "local",
      name: "group box",
      kind: "group",
      state: "cold",
      active: true,
      isSessionGroup: true,
      instanceId: null,
      workspaceGeneration: 0,
      archiveGeneration: null,
      archiveComplete: false,
      leaseEpoch: null,
      holders: { turn: 0, viewer: 0, direct: 0, process: 0 },
      os: null,
      arch: null,
      hasDisplay: false,
      confinement: null,
      lastSeenAt: null,
    });

    const warm = await seedSession(w.db);
    const lease = await warmLease(w, warm, "box-7");
    await w.leases.acquire({ ...warm, kind: "viewer", holderId: "viewer:tab-1" });
    const [live] = await readMachines(w.db, warm, NOW);
    expect(live).toMatchObject({
      state: "warm",
      instanceId: "box-7",
      leaseEpoch: lease.epoch,
      holders: { turn: 1, viewer: 1, direct: 0, process: 0 },
      archiveComplete: false,
    });
    // The latest heartbeat of its holders, to the millisecond the column keeps.
    const heard = await w.db.leaseHolder.aggregate({
      where: { leaseId: lease.id },
      _max: { lastHeartbeatAt: true },
    });
    expect(live?.lastSeenAt).toBeInstanceOf(Date);
    expect(live?.lastSeenAt?.getTime()).toBe(heard._max.lastHeartbeatAt?.getTime());
  });

  it("reads every session of a workspace in one query, and no other workspace's", async () => {
    const w = world.current;
    const first = await seedSession(w.db);
    const sessions = [first.sessionId];
    for (let i = 0; i < 30; i += 1) {
      const session = await w.db.session.create({
        data: {
          workspaceId: first.workspaceId,
          sandboxGroupId: crypto.randomUUID(),
          backend: "local",
          title: `s${String(i)}`,
        },
      });
      sessions.push(session.id);
    }
    await warmLease(w, first);
    await seedSession(w.db); // another workspace's session

    const probe = counted(w);
    const machines = await readMachines(probe.db, { workspaceId: first.workspaceId }, NOW);
    expect(probe.queries).toBe(1);
    expect(machines.map((m) => m.sessionId).sort()).toEqual([...sessions].sort());
    expect(machines.find((m) => m.sessionId === sessions[30])?.name).toBe("s29 (group box)");
    expect(machines.find((m) => m.sessionId === first.sessionId)?.state).toBe("warm");

    const one = await readMachines(probe.db, first, NOW);
    expect(probe.queries).toBe(2);
    expect(one.map((m) => m.sessionId)).toEqual([first.sessionId]);
    // A session of another workspace reads as nothing.
    const other = await seedSession(w.db);
    expect(await readMachines(w.db, { ...other, workspaceId: first.workspaceId }, NOW)).toEqual([]);
  });

  it("lists the workspace's enrolled machines after a session's group box, online by last heartbeat, active by the session's pointer", async () => {
    const w = world.current;
    const session = await seedSession(w.db);
    // Online: connected, its agent's last answer within the window; the rest offline.
    const enroll = (name: string, answeredAt: Date | null) =>
      w.db.machine.create({
        data: {
          workspaceId: session.workspaceId,
          name,
          os: "linux",
          arch: "arm64",
          hasDisplay: name === "studio",
          lastSeenAt: answeredAt,
          ...(answeredAt === null
            ? {}
            : {
                connection: {
                  create: { replicaId: "r1", connectedAt: answeredAt, lastHeartbeatAt: answeredAt },
                },
              }),
        },
      });
    const studio = await enroll("studio", new Date(NOW.getTime() - MACHINE_ONLINE_WINDOW_MS));
    await enroll("attic", new Date(NOW.getTime() - MACHINE_ONLINE_WINDOW_MS - 1));
    await enroll("never", null);
    // Seen a moment ago, but its channel ended: offline at once.
    await w.db.machine.create({
      data: {
        workspaceId: session.workspaceId,
        name: "gone",
        os: "linux",
        arch: "arm64",
        lastSeenAt: NOW,
      },
    });
    await w.db.session.update({
      where: { id: session.sessionId },
      data: { activeSandboxId: studio.id, activeEpoch: 1 },
    });
    const elsewhere = await seedSession(w.db);
    await w.db.machine.create({
      data: {
        workspaceId: elsewhere.workspaceId,
        name: "not-ours",
        os: "linux",
        arch: "x86_64",
      },
    });

    const probe = counted(w);
    const machines = await readMachines(probe.db, session, NOW);
    expect(probe.queries).toBe(1);
    expect(machines.map((m) => [m.name, m.kind, m.state, m.active])).toEqual([
      ["group box", "group", "cold", false],
      ["attic", "selfhosted", "offline", false],
      ["gone", "selfhosted", "offline", false],
      ["never", "selfhosted", "offline", false],
      ["studio", "selfhosted", "online", true],
    ]);
    expect(machines[4]).toMatchObject({
      sandboxId: studio.id,
      sessionId: session.sessionId,
      isSessionGroup: false,
      instanceId: null,
      os: "linux",
      arch: "arm64",
      hasDisplay: true,
      confinement: null,
      workspaceGeneration: 0,
      archiveGeneration: null,
      archiveComplete: false,
      leaseEpoch: null,
    });
    // The workspace-wide list is one group box per session: machines are listed per session.
    const all = await readMachines(w.db, { workspaceId: session.workspaceId }, NOW);
    expect(all.map((m) => m.kind)).toEqual(["group"]);
  });
});
