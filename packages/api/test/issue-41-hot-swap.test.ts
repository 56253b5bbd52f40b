// Issue 41: an admin moves a session's work between its group box and an enrolled machine (a
// real agent process), fenced by the session's activeEpoch. Writes land where the pointer says
// and answer where they landed; the group box is never woken by calls routed to the machine.
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import type { TerminalStreamEvent } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { useEnrolledAgent } from "./support/enrolledAgent.ts";
import { eventually, type RealAgent } from "./support/realAgent.ts";
import { callerAs } from "./support/testApi.ts";
import { enrollMachine, type SeededWorkspace } from "./support/world.ts";

const suite = useApiSuite();
const enrolled = useEnrolledAgent(suite, "alpha");
let a: SeededWorkspace;
let agent: RealAgent;
let machineId = "";

beforeAll(() => {
  ({ workspace: a, agent, machineId } = enrolled.current);
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "ok",
    (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
  );
}

/** The session's pointer epoch now. */
async function epochOf(sessionId: string): Promise<number> {
  const session = await suite.db.session.findUniqueOrThrow({ where: { id: sessionId } });
  return session.activeEpoch;
}

describe("hot-swap", () => {
  it("moves a session to a machine and back: writes land where it points, the group box is left asleep, the timeline shows both swaps", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const scope = { workspaceId: a.workspaceId, sessionId: a.boxSessionId };

    const toMachine = await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: 0 });
    expect(toMachine).toEqual({
      activeSandboxId: machineId,
      activeEpoch: 1,
      from: null,
      terminals: { ended: 0, leftOpen: 0 },
    });
    const written = await admin.fs.write({ ...scope, path: "swapped.txt", content: "on the desk" });
    expect(written).toMatchObject({
      routedTo: { kind: "machine", id: machineId },
      generation: null,
    });
    expect(await readFile(join(agent.root, "swapped.txt"), "utf8")).toBe("on the desk");
    expect((await admin.fs.read({ ...scope, path: "swapped.txt" })).content).toBe("on the desk");
    // Never woken: the session's group has no lease, so no box was ever made for it.
    const session = await suite.db.session.findUniqueOrThrow({ where: { id: a.boxSessionId } });
    const groupLease = { workspaceId: a.workspaceId, sandboxGroupId: session.sandboxGroupId };
    expect(await suite.db.sandboxLease.count({ where: groupLease })).toBe(0);
    const listed = await admin.machines.list(scope);
    expect(listed.filter((m) => m.active).map((m) => m.sandboxId)).toEqual([machineId]);

    const back = await admin.admin.swap({ ...scope, target: "group", expectedEpoch: 1 });
    expect(back).toEqual({
      activeSandboxId: null,
      activeEpoch: 2,
      from: machineId,
      terminals: { ended: 0, leftOpen: 0 },
    });
    const atHome = await admin.fs.write({ ...scope, path: "home.txt", content: "in the box" });
    expect(atHome.routedTo).toEqual({ kind: "group", id: session.sandboxGroupId });
    expect(atHome.generation).toBeGreaterThan(0);
    // Each target has exactly its own write.
    expect(await codeOf(admin.fs.read({ ...scope, path: "swapped.txt" }))).toBe("NOT_FOUND");
    await expect(readFile(join(agent.root, "home.txt"), "utf8")).rejects.toThrow(/ENOENT/);
    const again = await admin.machines.list(scope);
    expect(again.filter((m) => m.active).map((m) => m.kind)).toEqual(["group"]);

    const timeline = await admin.leases.timeline({ ...scope, limit: 50 });
    expect(timeline.swaps.map((swap) => [swap.from, swap.to, swap.activeEpoch])).toEqual([
      [null, machineId, 1],
      [machineId, null, 2],
    ]);
    const audit = await suite.db.auditEvent.findMany({
      where: { workspaceId: a.workspaceId, action: "session.swap" },
    });
    expect(audit).toHaveLength(2);
  }, 60_000);

  it("of two admins swapping at once exactly one wins; the other is CONFLICT naming the current epoch", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const scope = { workspaceId: a.workspaceId, sessionId: a.sessionId };
    const epoch = await epochOf(a.sessionId);
    const results = await Promise.allSettled([
      admin.admin.swap({ ...scope, target: machineId, expectedEpoch: epoch }),
      // Another caller (its own context), with the same expectation.
      callerAs(suite.api, { token: a.adminToken }).then((second) =>
        second.admin.swap({ ...scope, target: machineId, expectedEpoch: epoch }),
      ),
    ]);
    const won = results.filter((result) => result.status === "fulfilled");
    const lost = results.filter((result) => result.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const refusal = (lost[0] as PromiseRejectedResult).reason as TRPCError;
    expect(refusal.code).toBe("CONFLICT");
    expect(refusal.message).toContain(`epoch ${String(epoch + 1)}`);
    expect(await epochOf(a.sessionId)).toBe(epoch + 1);
  });

  it("a member cannot swap; an offline machine is refused with nothing moved", async () => {
    const member = await callerAs(suite.api, { token: a.memberToken });
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const scope = { workspaceId: a.workspaceId, sessionId: a.boxSessionId };
    const epoch = await epochOf(a.boxSessionId);
    expect(
      await codeOf(member.admin.swap({ ...scope, target: machineId, expectedEpoch: epoch })),
    ).toBe("FORBIDDEN");
    const { code } = await admin.machines.enroll({ workspaceId: a.workspaceId });
    const asleep = await enrollMachine(suite.api, { code, name: "asleep" });
    const refused = admin.admin.swap({ ...scope, target: asleep, expectedEpoch: epoch });
    await expect(refused).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: expect.stringContaining("offline") as unknown,
    });
    expect(await epochOf(a.boxSessionId)).toBe(epoch);
  });

  it("a swap while 50 writes are in flight: each lands on exactly one target, and its answer says which", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const scope = { workspaceId: a.workspaceId, sessionId: a.boxSessionId };
    const epoch = await epochOf(a.boxSessionId);
    const names = Array.from({ length: 50 }, (_, i) => `flight/w-${String(i)}.txt`);
    const write = (path: string) =>
      admin.fs.write({ ...scope, path, content: path, createParents: true });
    // Half go first; once one of them has landed, the swap starts with the rest in flight, and
    // the last five are sent once it has committed.
    const first = names.slice(0, 25).map(write);
    await Promise.any(first);
    const swapped = admin.admin.swap({ ...scope, target: machineId, expectedEpoch: epoch });
    const during = names.slice(25, 45).map(write);
    await swapped;
    const after = names.slice(45).map(write);
    const answers = await Promise.allSettled([...first, ...during, ...after]);

    const onMachine = new Set(await readdir(join(agent.root, "flight")).catch(() => []));
    // Back home to list what the group box holds.
    await admin.admin.swap({ ...scope, target: "group", expectedEpoch: epoch + 1 });
    const listed = await admin.fs.list({ ...scope, path: "flight" }).catch(() => ({ entries: [] }));
    const inGroup = new Set(listed.entries.map((entry) => entry.name));
    let landedOnMachine = 0;
    answers.forEach((answer, i) => {
      const name = (names[i] ?? "").slice("flight/".length);
      if (answer.status === "rejected") {
        // Refused before it reached any target: retryable, and nowhere.
        expect((answer.reason as TRPCError).code).toBe("CONFLICT");
        expect(onMachine.has(name) || inGroup.has(name)).toBe(false);
        return;
      }
      const where = answer.value.routedTo.kind;
      if (where === "machine") landedOnMachine += 1;
      expect([where, onMachine.has(name), inGroup.has(name)]).toEqual(
        where === "machine" ? ["machine", true, false] : ["group", false, true],
      );
    });
    // Nothing landed that was not answered.
    expect(onMachine.size + inGroup.size).toBeLessThanOrEqual(names.length);
    expect(landedOnMachine).toBe(onMachine.size);
    // Both targets took writes: the first landed before the swap, the last five after it.
    expect(inGroup.size).toBeGreaterThanOrEqual(1);
    expect(onMachine.size).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it("a terminal open on the group box ends with route_moved when the session is swapped away; the shell is closed there and holds the box no more", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const made = await admin.sessions.create({ workspaceId: a.workspaceId, title: "terminal" });
    const scope = { workspaceId: a.workspaceId, sessionId: made.id };
    const terminal = await admin.terminal.open(scope);
    expect(terminal).toMatchObject({ routedTo: { kind: "group" }, routeEpoch: 0 });
    const stream = await admin.terminal.output({ ...scope, id: terminal.id });
    const events: TerminalStreamEvent[] = [];
    let ready: () => void = () => undefined;
    const attached = new Promise<void>((resolve) => (ready = resolve));
    const read = (async () => {
      let text = "";
      for await (const tracked of stream) {
        // A server-side caller yields the tracked envelope as the procedure made it: [id, event].
        const [, event] = tracked as unknown as [string, TerminalStreamEvent];
        events.push(event);
        if (event.type === "output") text += event.data;
        if (text.includes("ready-2")) ready();
      }
    })();
    // Keystrokes are a write too: admitted on the group box, and saying so.
    const typed = await admin.terminal.write({
      ...scope,
      id: terminal.id,
      data: "echo ready-$((1+1))\n",
    });
    expect(typed.routedTo).toEqual({ kind: "group", id: made.sandboxGroupId });
    expect(typed.generation).toBeGreaterThan(0);
    await attached;
    const lease = await suite.db.sandboxLease.findFirstOrThrow({
      where: { workspaceId: a.workspaceId, sandboxGroupId: made.sandboxGroupId },
    });
    const holders = () =>
      suite.db.leaseHolder.count({
        where: { leaseId: lease.id, holderId: `terminal:${terminal.id}` },
      });
    expect(await holders()).toBe(1);

    // Swapped onto where it already runs (a new epoch, the same box): the shell stays open.
    await admin.admin.swap({ ...scope, target: "group", expectedEpoch: 0 });
    const typedAgain = events.length;
    await admin.terminal.write({ ...scope, id: terminal.id, data: "echo still-$((2+2))\n" });
    await eventually("the shell's answer after a same-target swap", () =>
      Promise.resolve(
        events
          .slice(typedAgain)
          .some((event) => event.type === "output" && event.data.includes("still-4")),
      ),
    );

    await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: 1 });
    await read;
    expect(events.at(-1)).toEqual({
      type: "route_moved",
      activeEpoch: 2,
      routedTo: { kind: "machine", id: machineId },
    });
    expect(await holders()).toBe(0);
    // Back home, the group box no longer has the shell.
    await admin.admin.swap({ ...scope, target: "group", expectedEpoch: 2 });
    expect(await codeOf(admin.terminal.write({ ...scope, id: terminal.id, data: "x" }))).toBe(
      "NOT_FOUND",
    );
  }, 60_000);

  it("a terminal nobody is watching on the group box is ended by a swap away too", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const made = await admin.sessions.create({ workspaceId: a.workspaceId, title: "unwatched" });
    const scope = { workspaceId: a.workspaceId, sessionId: made.id };
    const terminal = await admin.terminal.open(scope);
    const held = () =>
      suite.db.leaseHolder.count({ where: { holderId: `terminal:${terminal.id}` } });
    expect(await held()).toBe(1);

    const swapped = await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: 0 });
    expect(swapped.terminals).toEqual({ ended: 1, leftOpen: 0 });
    expect(await held()).toBe(0);
    await admin.admin.swap({ ...scope, target: "group", expectedEpoch: 1 });
    expect(await codeOf(admin.terminal.write({ ...scope, id: terminal.id, data: "x" }))).toBe(
      "NOT_FOUND",
    );
  }, 60_000);

  it("events.session sends the session's route first and again on every swap", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const made = await admin.sessions.create({ workspaceId: a.workspaceId, title: "feed" });
    const scope = { workspaceId: a.workspaceId, sessionId: made.id };
    // Leaving the loop ends the subscription (its iterator's return stops the stream).
    const stream = await admin.events.session(scope);
    const routes: unknown[] = [];
    for await (const item of stream) {
      if (!("kind" in item) || item.kind !== "route") continue;
      routes.push(item);
      if (routes.length === 1)
        await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: 0 });
      if (routes.length === 2) break;
    }
    expect(routes).toEqual([
      { kind: "route", activeEpoch: 0, routedTo: { kind: "group", id: made.sandboxGroupId } },
      { kind: "route", activeEpoch: 1, routedTo: { kind: "machine", id: machineId } },
    ]);
  }, 30_000);

  it("a machine gone while the session points at it: calls fail machine_offline, nothing falls back to the group box, until an admin swaps back", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const scope = { workspaceId: a.workspaceId, sessionId: a.boxSessionId };
    const epoch = await epochOf(a.boxSessionId);
    await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: epoch });
    await agent.stop();
    await eventually("the channel's end", () =>
      Promise.resolve(!suite.api.agentChannels.holds(machineId)),
    );
    const refused = await admin.fs.write({ ...scope, path: "lost.txt", content: "nowhere" }).then(
      () => undefined,
      (error: unknown) => error as TRPCError,
    );
    expect(refused?.code).toBe("PRECONDITION_FAILED");
    expect(refused?.message).toContain("offline");
    // Swapped back, the session works on its group box again; the refused write is nowhere.
    await admin.admin.swap({ ...scope, target: "group", expectedEpoch: epoch + 1 });
    expect(await codeOf(admin.fs.read({ ...scope, path: "lost.txt" }))).toBe("NOT_FOUND");
    expect((await admin.fs.list({ ...scope, path: "" })).entries.length).toBeGreaterThan(0);
  }, 60_000);
});
