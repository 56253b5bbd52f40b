import { BoxError, type AgentRequest } from "@berth/box-protocol";
import type { DbClient } from "@berth/db";
import { useTestDatabase } from "@berth/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentChannels,
  authenticateMachine,
  DEFAULT_HEARTBEAT_MS,
  issueRotatedCredential,
  MACHINE_ONLINE_WINDOW_MS,
  readEnrolledMachines,
  machineBoxClient,
  machineCredentialHash,
  requestCredentialRotation,
  type AgentEvent,
  type ConnectingMachine,
} from "../machines/index.ts";
import { ManualClock } from "../testing/manualClock.ts";
import { seedMachine } from "./machineFixture.ts";

const database = useTestDatabase();
const FACTS = { os: "linux", arch: "x64", hasDisplay: false, boxdVersion: "0.1.0" };
const opened: AgentChannels[] = [];

afterEach(async () => {
  for (const channels of opened.splice(0)) await channels.close();
});

function channelsOn(
  db: DbClient,
  clock = new ManualClock(),
  replicaId = "replica-a",
): AgentChannels {
  const channels = new AgentChannels({ db, clock, replicaId, heartbeatMs: 0 });
  opened.push(channels);
  return channels;
}

/** A sink that records what the agent would receive. */
function recorder(): {
  sink: (event: AgentEvent) => void;
  requests: () => AgentRequest[];
  rotations: () => number;
} {
  const events: AgentEvent[] = [];
  return {
    sink: (event) => events.push(event),
    rotations: () => events.filter((e) => e.event === "rotate").length,
    requests: () =>
      events.filter((e) => e.event === "request").map((e) => JSON.parse(e.data) as AgentRequest),
  };
}

const listing = {
  entries: [
    { path: "a.txt", name: "a.txt", type: "file" as const, mode: 0o644, size: 3, mtimeMs: 1 },
  ],
};

describe("AgentChannels", () => {
  // A held channel sends the request before call() first awaits: no waiting in these tests.
  it("sends a call as a request event and resolves with the validated reply", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const channels = channelsOn(db);
    const agent = recorder();
    await channels.open(machine, FACTS, agent.sink);
    const answer = channels.call(machine, "list", { path: "." });
    expect(agent.requests().length).toBe(1);
    const [request] = agent.requests();
    expect(request).toMatchObject({ op: "list", input: { path: "." } });
    expect(
      await channels.reply(machine, { id: request?.id ?? "", ok: true, result: listing }),
    ).toBe(true);
    expect(await answer).toEqual(listing);
  });

  it("rejects with the agent's code, refuses bad input, and refuses a malformed result", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const channels = channelsOn(db);
    const agent = recorder();
    await channels.open(machine, FACTS, agent.sink);
    const failing = channels.call(machine, "stat", { path: "../x" });
    expect(agent.requests().length).toBe(1);
    const id = agent.requests()[0]?.id ?? "";
    await channels.reply(machine, {
      id,
      ok: false,
      error: { code: "outside_workspace", message: "no" },
    });
    await expect(failing).rejects.toMatchObject({ name: "BoxError", code: "outside_workspace" });

    await expect(
      channels.call(machine, "list", { path: 7 } as unknown as { path: string }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    expect(agent.requests()).toHaveLength(1);

    const malformed = channels.call(machine, "list", { path: "." });
    expect(agent.requests().length).toBe(2);
    await channels.reply(machine, {
      id: agent.requests()[1]?.id ?? "",
      ok: true,
      result: { no: 1 },
    });
    await expect(malformed).rejects.toMatchObject({ code: "internal" });
  });

  it("answers machine_offline at once for a machine not connected, not_found for another workspace's", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const other = await seedMachine(db);
    const channels = channelsOn(db);
    const error = await channels.call(machine, "list", { path: "." }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BoxError);
    expect(error).toMatchObject({ code: "machine_offline" });
    expect((error as Error).message).toContain("node boxd.mjs agent");

    // Connected or not, a machine of workspace A is not there for a caller in workspace B.
    const asOther = { machineId: machine.machineId, workspaceId: other.workspaceId };
    await expect(channels.call(asOther, "list", { path: "." })).rejects.toMatchObject({
      code: "not_found",
    });
    await channels.open(machine, FACTS, recorder().sink);
    await expect(channels.call(asOther, "list", { path: "." })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("times out, and ignores a reply under another machine's call id", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const intruder = await seedMachine(db);
    const channels = channelsOn(db);
    const agent = recorder();
    await channels.open(machine, FACTS, agent.sink);
    await channels.open(intruder, FACTS, recorder().sink);
    const call = channels.call({ ...machine, timeoutMs: 200 }, "list", { path: "." });
    expect(agent.requests().length).toBe(1);
    const id = agent.requests()[0]?.id ?? "";
    expect(await channels.reply(intruder, { id, ok: true, result: listing })).toBe(false);
    await expect(call).rejects.toMatchObject({ code: "timeout" });
    // Once timed out, the real machine's late reply finds nothing waiting.
    expect(await channels.reply(machine, { id, ok: true, result: listing })).toBe(false);
  });

  it("a reconnect replaces the older channel, whose pending calls fail unavailable", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const channels = channelsOn(db);
    const first = recorder();
    const older = await channels.open(machine, FACTS, first.sink);
    const pending = channels.call(machine, "list", { path: "." });
    expect(first.requests().length).toBe(1);
    const second = recorder();
    const newer = await channels.open(machine, FACTS, second.sink);
    expect(await older.ended).toBe("replaced");
    await expect(pending).rejects.toMatchObject({ code: "unavailable" });
    // The older holder's close leaves the newer connection's row alone.
    await older.close();
    expect(await db.machineConnection.count({ where: { machineId: machine.machineId } })).toBe(1);

    const client = machineBoxClient(channels, machine);
    const listed = client.list({ path: "." });
    expect(second.requests().length).toBe(1);
    await channels.reply(machine, {
      id: second.requests()[0]?.id ?? "",
      ok: true,
      result: listing,
    });
    expect(await listed).toEqual(listing);
    await newer.close();
  });

  it("records the connection, its epoch and lastSeenAt with the injected clock; an answered ping refreshes them; close removes the row", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const clock = new ManualClock(new Date("2026-12-02T10:00:00.000Z"));
    const channels = channelsOn(db, clock);
    const events: AgentEvent[] = [];
    const connection = await channels.open(
      machine,
      { os: "linux", arch: "arm64", hasDisplay: true, boxdVersion: "1.2.3" },
      (event) => events.push(event),
    );
    expect(
      await db.machineConnection.findUnique({ where: { machineId: machine.machineId } }),
    ).toEqual({
      machineId: machine.machineId,
      replicaId: "replica-a",
      replicaUrl: null,
      connectionEpoch: 1,
      connectedAt: new Date("2026-12-02T10:00:00.000Z"),
      lastHeartbeatAt: new Date("2026-12-02T10:00:00.000Z"),
    });
    expect(
      await db.machine.findUnique({
        where: { id: machine.machineId },
        select: { lastSeenAt: true, os: true, arch: true, hasDisplay: true, boxdVersion: true },
      }),
    ).toEqual({
      lastSeenAt: new Date("2026-12-02T10:00:00.000Z"),
      os: "linux",
      arch: "arm64",
      hasDisplay: true,
      boxdVersion: "1.2.3",
    });

    clock.advance(15_000);
    await channels.heartbeatOnce();
    expect(events.map((e) => e.event)).toEqual(["ping"]);
    // Pinged is not heard from: the agent's answer is.
    const unanswered = await db.machine.findUnique({ where: { id: machine.machineId } });
    expect(unanswered?.lastSeenAt).toEqual(new Date("2026-12-02T10:00:00.000Z"));
    const { id } = JSON.parse(events[0]?.data ?? "{}") as { id: string };
    expect(await channels.reply(machine, { id, ok: true, result: {} })).toBe(true);
    const row = await db.machineConnection.findUnique({ where: { machineId: machine.machineId } });
    expect(row?.lastHeartbeatAt).toEqual(new Date("2026-12-02T10:00:15.000Z"));
    const seen = await db.machine.findUnique({ where: { id: machine.machineId } });
    expect(seen?.lastSeenAt).toEqual(new Date("2026-12-02T10:00:15.000Z"));

    await connection.close();
    expect(await connection.ended).toBe("closed");
    expect(await db.machineConnection.count({ where: { machineId: machine.machineId } })).toBe(0);
  });

  it("ends a channel at the heartbeat after its credential is revoked", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const clock = new ManualClock();
    const channels = channelsOn(db, clock);
    const connection = await channels.open(machine, FACTS, recorder().sink);
    await db.machineCredential.updateMany({
      where: { machineId: machine.machineId },
      data: { revokedAt: await clock.now() },
    });
    await channels.heartbeatOnce();
    expect(await connection.ended).toBe("revoked");
    expect(channels.holds(machine.machineId)).toBe(false);
    expect(await db.machineConnection.count({ where: { machineId: machine.machineId } })).toBe(0);
  });

  it("a channel whose machine connected again through another replica ends at its heartbeat", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const clock = new ManualClock();
    const here = channelsOn(db, clock, "replica-a");
    const there = channelsOn(db, clock, "replica-b");
    const older = await here.open(machine, FACTS, recorder().sink);
    await there.open(machine, FACTS, recorder().sink);
    await here.heartbeatOnce();
    expect(await older.ended).toBe("replaced");
    const row = await db.machineConnection.findUnique({ where: { machineId: machine.machineId } });
    expect(row?.replicaId).toBe("replica-b");
    // Replica A does not hold it: a call there is `unavailable` (no relay yet).
    await expect(here.call(machine, "list", { path: "." })).rejects.toMatchObject({
      code: "unavailable",
    });
    expect(there.holds(machine.machineId)).toBe(true);
  });
});

describe("credential rotation", () => {
  /** The credential the agent gets in exchange for `old` (what POST /agent/v1/rotate answers). */
  async function exchange(db: DbClient, machine: ConnectingMachine, clock: ManualClock) {
    const issued = await issueRotatedCredential(db, { ...machine, now: await clock.now() });
    if (issued.outcome !== "issued") throw new Error(`not issued: ${issued.outcome}`);
    const next = issued.credential;
    return { ...machine, credential: next, credentialHash: machineCredentialHash(next) };
  }

  it("tells the agent now and at every connect; the old credential works until the new one connects", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const clock = new ManualClock();
    const channels = channelsOn(db, clock);
    const agent = recorder();
    await channels.open(machine, FACTS, agent.sink);
    const ref = { machineId: machine.machineId, workspaceId: machine.workspaceId };
    const requested = await requestCredentialRotation(db, { ...ref, now: await clock.now() });
    expect(requested.outcome).toBe("requested");
    expect(await requestCredentialRotation(db, { ...ref, now: await clock.now() })).toMatchObject({
      outcome: "already_requested",
    });
    expect(channels.requestRotation(machine.machineId)).toBe(true);
    expect(agent.rotations()).toBe(1);
    // The heartbeat tells it again (the request may have been made on another replica).
    await channels.heartbeatOnce();
    expect(agent.rotations()).toBe(2);

    // An answer lost on the way: the agent reconnects with the old one, is told again, and a
    // second exchange revokes the first new credential, which was never used.
    const lost = await exchange(db, machine, clock);
    const again = recorder();
    await channels.open(machine, FACTS, again.sink);
    expect(again.rotations()).toBe(1);
    expect(await authenticateMachine(db, machine.credential)).toBeDefined();
    expect(await authenticateMachine(db, lost.credential)).toBeUndefined();

    const saved = await exchange(db, machine, clock);
    expect(await authenticateMachine(db, machine.credential)).toBeDefined();
    const fresh = recorder();
    await channels.open(saved, FACTS, fresh.sink);
    expect(fresh.rotations()).toBe(0);
    expect(await authenticateMachine(db, machine.credential)).toBeUndefined();
    expect(await authenticateMachine(db, saved.credential)).toEqual(ref);
    await channels.heartbeatOnce();
    expect(fresh.rotations()).toBe(0);
    // Done: a new request is a new rotation.
    expect(await requestCredentialRotation(db, { ...ref, now: await clock.now() })).toMatchObject({
      outcome: "requested",
    });
  });

  it("refuses a revoked machine, and another workspace's is not found; revoke ends the channel at once", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const other = await seedMachine(db);
    const clock = new ManualClock();
    const now = await clock.now();
    const ref = { machineId: machine.machineId, workspaceId: machine.workspaceId };
    expect(
      await requestCredentialRotation(db, { ...ref, workspaceId: other.workspaceId, now }),
    ).toEqual({ outcome: "not_found" });
    expect(
      await issueRotatedCredential(db, { ...ref, credentialHash: other.credentialHash, now }),
    ).toEqual({ outcome: "refused" });
    const channels = channelsOn(db, clock);
    const connection = await channels.open(machine, FACTS, recorder().sink);
    await db.machine.update({ where: { id: machine.machineId }, data: { revokedAt: now } });
    expect(await requestCredentialRotation(db, { ...ref, now })).toEqual({ outcome: "revoked" });
    expect(await issueRotatedCredential(db, { ...machine, now })).toEqual({ outcome: "refused" });
    await channels.endRevoked(machine.machineId);
    expect(await connection.ended).toBe("revoked");
    expect(channels.holds(machine.machineId)).toBe(false);
    expect(await db.machineConnection.count({ where: { machineId: machine.machineId } })).toBe(0);
    expect(channels.requestRotation(machine.machineId)).toBe(false);
  });
});

describe("offline (issue 40)", () => {
  it("an agent that leaves a ping unanswered for a heartbeat period is offline: calls fail at once, the view says so; reconnecting restores it", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const clock = new ManualClock();
    const channels = channelsOn(db, clock);
    const state = async () =>
      (await readEnrolledMachines(db, machine, await clock.now()))[0]?.state;
    const agent = recorder();
    const connection = await channels.open(machine, FACTS, agent.sink);
    expect(await state()).toBe("online");

    // The agent hangs (its process stopped, its network gone): the socket still takes writes.
    await channels.heartbeatOnce();
    clock.advance(DEFAULT_HEARTBEAT_MS);
    expect(await state()).toBe("online");
    await channels.heartbeatOnce();
    expect(await connection.ended).toBe("silent");
    expect(await state()).toBe("offline");
    await expect(channels.call(machine, "list", { path: "." })).rejects.toMatchObject({
      code: "machine_offline",
    });
    // Told without waiting on anything: no request went anywhere.
    expect(agent.requests()).toHaveLength(0);

    const back = recorder();
    await channels.open(machine, FACTS, back.sink);
    expect(await state()).toBe("online");
    const answer = channels.call(machine, "list", { path: "." });
    await channels.reply(machine, { id: back.requests()[0]?.id ?? "", ok: true, result: listing });
    expect(await answer).toEqual(listing);
  });

  it("a machine whose holding replica died reads offline once the window passes, and is offline to calls from elsewhere", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const clock = new ManualClock();
    // The holder opens the channel, then is never heard from again (no heartbeats, no close).
    const holder = new AgentChannels({ db, clock, replicaId: "dead", heartbeatMs: 0 });
    await holder.open(machine, FACTS, recorder().sink);
    const elsewhere = channelsOn(db, clock, "alive");
    const state = async () =>
      (await readEnrolledMachines(db, machine, await clock.now()))[0]?.state;
    expect(await state()).toBe("online");
    clock.advance(MACHINE_ONLINE_WINDOW_MS + 1);
    expect(await state()).toBe("offline");
    await expect(elsewhere.call(machine, "list", { path: "." })).rejects.toMatchObject({
      code: "machine_offline",
      message: expect.stringContaining("stopped answering") as unknown,
    });
  });
});
