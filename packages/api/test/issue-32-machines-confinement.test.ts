// Issue 32: machines.list shows what each group box was given — isolation, network, limits —
// once a box runs, as its lease recorded it; nothing for a cold box or an enrolled machine.
// The real API over Postgres, waking a real local box (bubblewrap where the machine has it).
import { probeBubblewrap } from "@berth/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { createPerson } from "./support/world.ts";

const ci = process.env.CI === "true" || process.env.CI === "1";
// Under CI bubblewrap is required (the API's boxes are "auto"), so this runs there.
const bubblewrap = ci || (await probeBubblewrap("bwrap")).ok;

const suite = useApiSuite();
let owner: Awaited<ReturnType<typeof callerAs>>;
let workspaceId = "";

beforeAll(async () => {
  const person = await createPerson(suite.api, suite.db, "confined");
  owner = await callerAs(suite.api, { cookie: person.cookie });
  ({ id: workspaceId } = await owner.workspaces.create({
    slug: `confined-${crypto.randomUUID().slice(0, 6)}`,
    name: "Confined",
  }));
}, 60_000);

describe("machines.list", () => {
  it.skipIf(!bubblewrap)(
    "shows a running group box's isolation, network and limits as its lease recorded them",
    async () => {
      const session = await owner.sessions.create({ workspaceId, title: "confined" });
      const on = { workspaceId, sessionId: session.id };
      const [cold] = await owner.machines.list(on);
      expect(cold).toMatchObject({ state: "cold", instanceId: null, confinement: null });

      await owner.fs.list({ ...on, path: "" });
      const [group] = await owner.machines.list(on);
      const lease = await suite.db.sandboxLease.findFirstOrThrow({
        where: { workspaceId, instanceId: group?.instanceId ?? "" },
      });
      expect(lease.boxIsolation).toBe("bubblewrap");
      // The limits its cgroups and disk watch enforce, as the lease recorded them.
      expect(lease.boxMaxProcesses).toBeGreaterThan(0);
      expect(group?.confinement).toEqual({
        isolation: "bubblewrap",
        network: lease.boxNetwork,
        limits: {
          processes: lease.boxMaxProcesses,
          memoryBytes: lease.boxMemoryBytes === null ? null : Number(lease.boxMemoryBytes),
          cpuWeight: lease.boxCpuWeight,
          diskBytes: lease.boxDiskBytes === null ? null : Number(lease.boxDiskBytes),
        },
      });
      // Never the host's network in bubblewrap.
      expect(["none", "egress"]).toContain(group?.confinement?.network);
      // The workspace-wide list carries it too.
      const all = await owner.machines.list({ workspaceId });
      expect(all.find((m) => m.sessionId === session.id)?.confinement).toEqual(group?.confinement);
    },
  );

  it("shows no confinement for an enrolled machine: it is its owner's, not Berth's", async () => {
    const session = await owner.sessions.create({ workspaceId, title: "enrolled" });
    await suite.db.machine.create({
      data: {
        workspaceId,
        name: "laptop",
        os: "linux",
        arch: "x86_64",
      },
    });
    const machines = await owner.machines.list({ workspaceId, sessionId: session.id });
    expect(machines.map((m) => [m.kind, m.confinement])).toEqual([
      ["group", null],
      ["selfhosted", null],
    ]);
  });
});
