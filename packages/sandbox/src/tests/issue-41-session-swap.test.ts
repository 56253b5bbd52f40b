// Issue 41: the session's pointer moves by one compare-and-swap on activeEpoch. Ten swaps at
// once from the same epoch: exactly one wins and is logged; the rest lose, told where it points.
import { describe, expect, it } from "vitest";
import { readSessionSwaps, swapSession, type SwapOutcome } from "../routing/sessionSwap.ts";
import { seedSession, useLeaseWorld } from "./leaseFixture.ts";

const world = useLeaseWorld();

describe("swapSession", () => {
  it("of ten swaps at once exactly one wins; the losers change nothing and name the new pointer", async () => {
    const w = world.current;
    const session = await seedSession(w.db);
    const now = await w.clock.now();
    const outcomes: SwapOutcome[] = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        swapSession(w.db, {
          ...session,
          target: { kind: "group" },
          expectedEpoch: 0,
          actor: `user:${String(i)}`,
          now,
        }),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.outcome === "swapped");
    expect(won).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.outcome === "lost_race")).toEqual(
      Array.from({ length: 9 }, () => ({
        outcome: "lost_race",
        activeSandboxId: null,
        activeEpoch: 1,
      })),
    );
    const swaps = await readSessionSwaps(w.db, { ...session, limit: 10 });
    expect(swaps.map((swap) => [swap.from, swap.to, swap.activeEpoch])).toEqual([[null, null, 1]]);
  });

  it("refuses a machine that is not connected, and another workspace's as not found, moving nothing", async () => {
    const w = world.current;
    const session = await seedSession(w.db);
    const elsewhere = await seedSession(w.db);
    const machine = await w.db.machine.create({
      data: { workspaceId: session.workspaceId, name: "desk", os: "linux", arch: "x64" },
    });
    const theirs = await w.db.machine.create({
      data: { workspaceId: elsewhere.workspaceId, name: "desk", os: "linux", arch: "x64" },
    });
    const now = await w.clock.now();
    const swap = (machineId: string) =>
      swapSession(w.db, {
        ...session,
        target: { kind: "machine", machineId },
        expectedEpoch: 0,
        actor: "user:1",
        now,
      });
    expect(await swap(machine.id)).toEqual({ outcome: "machine_offline" });
    expect(await swap(theirs.id)).toEqual({ outcome: "machine_not_found" });
    // Connected and answering: the swap goes through.
    await w.db.machineConnection.create({
      data: { machineId: machine.id, replicaId: "r1", connectedAt: now, lastHeartbeatAt: now },
    });
    expect(await swap(machine.id)).toMatchObject({
      outcome: "swapped",
      activeSandboxId: machine.id,
      activeEpoch: 1,
    });
  });
});
