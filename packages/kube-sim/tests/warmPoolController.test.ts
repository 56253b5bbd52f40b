/**
 * SandboxWarmPool upkeep (§8.4) through client-node: scaling, Recreate, and replacing members
 * that never become Ready.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MERGE } from "./harness.ts";
import type { ControlledFixture } from "./kit.ts";
import {
  POOLS,
  TEMPLATES,
  clusterFixture,
  conditionOf,
  eventually,
  getPool,
  getSandbox,
  listSandboxes,
  pool,
  template,
} from "./kit.ts";

// Real processes start under whatever load CI puts on the machine: generous per-test budgets.
describe("the SandboxWarmPool controller (§8.4)", { timeout: 20_000 }, () => {
  let current: ControlledFixture | undefined;
  afterEach(async () => {
    await current?.sim.close();
    current = undefined;
  });

  it("§8.4 scaling a pool down deletes the surplus members; observedGeneration follows the spec", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("p", "tpl", 3) });
    await eventually(
      () => getPool(f, "p"),
      (p) => p.status?.readyReplicas === 3,
    );
    await f.custom.patchNamespacedCustomObject(
      { ...POOLS, name: "p", body: { spec: { replicas: 1 } } },
      MERGE,
    );
    const scaled = await eventually(
      () => getPool(f, "p"),
      (p) => p.status?.replicas === 1 && p.status.readyReplicas === 1,
    );
    expect(scaled.status?.observedGeneration).toBe(scaled.metadata.generation);
    expect(scaled.metadata.generation).toBe(2);
    await eventually(
      () => listSandboxes(f),
      (items) => items.length === 1,
    );
  });

  it("§8.4 updateStrategy Recreate replaces members made from an older blueprint; OnReplenish keeps them", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("keep", "tpl", 1) });
    const renew = pool("renew", "tpl", 1);
    (renew.spec as Record<string, unknown>).updateStrategy = { type: "Recreate" };
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: renew });
    const membersOf = async (prefix: string): Promise<string[]> =>
      (await listSandboxes(f))
        .map((s) => s.metadata.name ?? "")
        .filter((n) => n.startsWith(`${prefix}-`));
    for (const name of ["keep", "renew"])
      await eventually(
        () => getPool(f, name),
        (p) => p.status?.readyReplicas === 1,
      );
    const [kept] = await membersOf("keep");
    const [old] = await membersOf("renew");
    await f.custom.patchNamespacedCustomObject(
      {
        ...TEMPLATES,
        name: "tpl",
        body: { spec: { podTemplate: { metadata: { labels: { app: "agent", v: "2" } } } } },
      },
      MERGE,
    );
    await eventually(
      () => membersOf("renew"),
      (names) => names.length === 1 && names[0] !== old,
    );
    await eventually(
      () => getPool(f, "renew"),
      (p) => p.status?.readyReplicas === 1,
    );
    expect(await membersOf("keep")).toEqual([kept]);
  });

  it("§8.4 a member still not Ready 5 minutes (virtual) after creation is replaced, unless its pod is Unschedulable", async () => {
    const f = await clusterFixture();
    current = f;
    f.sim.kubelet?.faults.set({ image: "lazy" }, { kind: "NotReady" });
    f.sim.kubelet?.faults.set({ image: "nowhere" }, { kind: "Unschedulable" });
    for (const image of ["lazy", "nowhere"]) {
      await f.custom.createNamespacedCustomObject({
        ...TEMPLATES,
        body: template(image, {
          podTemplate: { spec: { containers: [{ name: "main", image }] } },
        }),
      });
      await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool(image, image, 1) });
    }
    const names = async (): Promise<string[]> =>
      (await listSandboxes(f)).map((s) => s.metadata.name ?? "").sort();
    const before = await eventually(names, (n) => n.length === 2);
    await eventually(
      async () => conditionOf(await getSandbox(f, before[1] ?? ""), "PodScheduled")?.reason,
      (reason) => reason === "Unschedulable",
    );
    await f.sim.settled();
    f.clock.advance(4 * 60 * 1000);
    await f.sim.settled();
    expect(await names()).toEqual(before);
    f.clock.advance(60 * 1000);
    const after = await eventually(names, (n) => n.length === 2 && n[0] !== before[0]);
    expect(after[0]).toMatch(/^lazy-/);
    // The unschedulable member is kept: replacing it would not help.
    expect(after[1]).toBe(before[1]);
  });
});
