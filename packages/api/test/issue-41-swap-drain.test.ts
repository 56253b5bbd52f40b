// Issue 41: while a session points at an enrolled machine, its group box is left alone — calls
// routed to the machine take no holder of it, never re-arm its idle grace, and never wake it once
// the worker's reaper has drained it. The reaper runs as the worker builds it, on a clock of its
// own set past the grace; the API keeps real time, so the agent stays online throughout.
import { ManualClock } from "@berth/sandbox/testing";
import { describe, expect, it } from "vitest";
import { useApiSuite } from "./support/apiSuite.ts";
import { useEnrolledAgent } from "./support/enrolledAgent.ts";
import { callerAs } from "./support/testApi.ts";
import { workerReaper } from "./support/workerReaper.ts";

const suite = useApiSuite();
const enrolled = useEnrolledAgent(suite, "drain");

describe("the group box while the session is on a machine", () => {
  it("drains without being woken by the calls routed to the machine", async () => {
    const { workspace, machineId } = enrolled.current;
    const admin = await callerAs(suite.api, { token: workspace.adminToken });
    const made = await admin.sessions.create({ workspaceId: workspace.workspaceId, title: "idle" });
    const scope = { workspaceId: workspace.workspaceId, sessionId: made.id };
    const leaseNow = () =>
      suite.db.sandboxLease.findFirstOrThrow({
        where: { workspaceId: workspace.workspaceId, sandboxGroupId: made.sandboxGroupId },
      });

    // The group box, woken by a write, then left: idle, counting down its grace.
    await admin.fs.write({ ...scope, path: "home.txt", content: "in the box" });
    await suite.api.settled();
    const idle = await leaseNow();
    expect(idle).toMatchObject({ liveness: "draining", holderCount: 0 });

    const lastEvent = await suite.db.leaseEvent.findFirstOrThrow({
      where: { leaseId: idle.id },
      orderBy: { id: "desc" },
    });
    await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: 0 });
    const calls = async (round: number) => {
      const written = await admin.fs.write({
        ...scope,
        path: `r${String(round)}.txt`,
        content: "x",
      });
      expect(written.routedTo).toEqual({ kind: "machine", id: machineId });
      await admin.fs.read({ ...scope, path: `r${String(round)}.txt` });
      await admin.exec.run({ ...scope, argv: ["true"] });
      await admin.git.status(scope).catch(() => undefined);
    };
    await calls(1);
    await suite.api.settled();
    // Untouched: no holder taken, the grace not re-armed, the epoch and generation where they were.
    const during = await leaseNow();
    expect(during).toMatchObject({
      liveness: "draining",
      holderCount: 0,
      epoch: idle.epoch,
      workspaceGeneration: idle.workspaceGeneration,
      expiresAt: idle.expiresAt,
    });

    // Past the grace, the worker drains it; the calls that follow leave it cold.
    // The worker's reaper on a clock of its own, past the grace (the suite's own stays real).
    const reaper = workerReaper(suite, {
      clock: new ManualClock(new Date(idle.expiresAt.getTime() + 1)),
    });
    const swept = await reaper.sweepOnce();
    expect(swept.drains).toEqual([{ leaseId: idle.id, result: "cold" }]);
    await calls(2);
    await suite.api.settled();
    const after = await leaseNow();
    expect(after).toMatchObject({ liveness: "cold", holderCount: 0, instanceId: null });
    // Its log since it went idle: the drain, and nothing that woke it.
    const since = await suite.db.leaseEvent.findMany({
      where: { leaseId: idle.id, id: { gt: lastEvent.id } },
      orderBy: { id: "asc" },
    });
    expect(since.map((event) => event.toState)).not.toContain("warming");
    expect(since.at(-1)?.toState).toBe("cold");
  }, 60_000);
});
