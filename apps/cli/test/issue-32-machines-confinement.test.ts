// Issue 32: `berth machines` shows each running box's isolation, network and limits, warns of a
// box running unisolated, and --json carries them. The built CLI against the real API over HTTP,
// a real local box (bubblewrap where the machine has it) and Postgres.
import { probeBubblewrap } from "@berth/sandbox";
import { describe, expect, it } from "vitest";
import { useServedApi } from "./support/servedApi.ts";

const ci = process.env.CI === "true" || process.env.CI === "1";
// Under CI bubblewrap is required (the API's boxes are "auto"), so this runs there.
const bubblewrap = ci || (await probeBubblewrap("bwrap")).ok;

const served = useServedApi();

interface Listed {
  machines: { instanceId: string | null; confinement: unknown }[];
}

/** A session of its own whose box a `ls` woke. */
async function wokenSession(): Promise<string> {
  const sessionId = await served.current.newSession();
  const ls = await served.current.berth(["ls", "-s", sessionId]);
  expect(ls.code, ls.stderr).toBe(0);
  return sessionId;
}

describe("berth machines", () => {
  it.skipIf(!bubblewrap)(
    "shows a bubblewrap box's isolation, network and limits, and no warning",
    async () => {
      const sessionId = await wokenSession();
      const json = await served.current.berth(["machines", "-s", sessionId, "--json"]);
      const [group] = (json.json() as Listed).machines;
      const network = (group?.confinement as { network?: string } | null)?.network ?? "";
      expect(["none", "egress"]).toContain(network);
      const limits = (group?.confinement as { limits?: { processes: number | null } } | null)
        ?.limits;
      expect(limits?.processes).toBeGreaterThan(0);
      expect(group?.confinement).toEqual({ isolation: "bubblewrap", network, limits });

      const human = await served.current.berth(["machines", "-s", sessionId]);
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toMatch(
        /^SESSION\s+MACHINE\s+BACKEND\s+STATE\s+ISOLATION\s+LIMITS\s+INSTANCE/,
      );
      const row = human.stdout.split("\n").find((line) => line.includes(group?.instanceId ?? "?"));
      expect(row).toMatch(
        new RegExp(
          `\\s(warm|draining)\\s+bubblewrap/${network}\\s+procs ${String(limits?.processes)},`,
        ),
      );
      expect(human.stderr).not.toContain("unisolated");
    },
  );

  it("warns of an unisolated box and shows the limits a box was given", async () => {
    const sessionId = await wokenSession();
    const world = served.current;
    const session = await world.db.session.findUniqueOrThrow({ where: { id: sessionId } });
    // As a box started where bubblewrap did not work (BERTH_ALLOW_UNISOLATED=1) is recorded,
    // with limits as the limits work records them.
    await world.db.sandboxLease.updateMany({
      where: { workspaceId: world.workspaceId, sandboxGroupId: session.sandboxGroupId },
      data: {
        boxIsolation: "none",
        boxNetwork: "host",
        boxMaxProcesses: 512,
        boxMemoryBytes: 2n * 1024n ** 3n,
        boxCpuWeight: null,
        boxDiskBytes: 10n * 1024n ** 3n,
      },
    });

    const human = await world.berth(["machines", "-s", sessionId]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/\snone\/host\s+procs 512, mem 2(\.0)? GiB, disk 10(\.0)? GiB\s/);
    expect(human.stderr).toContain("Warning: 1 box runs unisolated (ISOLATION none)");

    const json = await world.berth(["machines", "-s", sessionId, "--json"]);
    expect((json.json() as Listed).machines[0]?.confinement).toEqual({
      isolation: "none",
      network: "host",
      limits: {
        processes: 512,
        memoryBytes: 2 * 1024 ** 3,
        cpuWeight: null,
        diskBytes: 10 * 1024 ** 3,
      },
    });
    // --json is the one document on stdout: the warning is for people only.
    expect(json.stderr).not.toContain("Warning");
  });
});
