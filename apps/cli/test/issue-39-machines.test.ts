// Issue 39: `berth machines enroll` prints a one-time code, its expiry and the agent's command;
// a machine enrolled with it (POST /agent/v1/enroll over real HTTP) shows in `berth machines
// enrolled`, and `rename`, `rotate` and `revoke` act on it; `berth swap` moves a session. The built
// CLI against the real API and Postgres.
import { describe, expect, it } from "vitest";
import { useServedApi } from "./support/servedApi.ts";

const served = useServedApi();

interface Enrollment {
  enrollment: { code: string; expiresAt: string; bundleUrl: string; command: string };
}
interface Enrolled {
  machines: { id: string; name: string; state: string; revokedAt: string | null }[];
}

describe("berth machines (enrolled)", () => {
  it("enroll prints a code and the command; the machine it enrolls is listed, renamed and revoked", async () => {
    const world = served.current;
    const human = await world.berth(["machines", "enroll", "--ttl", "5"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^Code: {4}[0-9A-Z]{5}(-[0-9A-Z]{5}){3}\n/);
    expect(human.stdout).toContain("(single use)");
    expect(human.stdout).toContain(`${world.url}/agent/boxd.mjs`);
    expect(human.stdout).toMatch(
      new RegExp(`node boxd\\.mjs agent --server ${world.url} --enroll [0-9A-Z-]{23} --root <DIR>`),
    );

    const json = await world.berth(["machines", "enroll", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const { enrollment } = json.json() as Enrollment;
    expect(enrollment.command).toContain(`--enroll ${enrollment.code}`);
    const minutes = (Date.parse(enrollment.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(8);
    expect(minutes).toBeLessThanOrEqual(10.5);

    const bad = await world.berth(["machines", "enroll", "--ttl", "61"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--ttl 61 is not 1-60 minutes");

    const response = await fetch(`${world.url}/agent/v1/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        code: enrollment.code,
        name: "workstation",
        os: "linux",
        arch: "x64",
        hasDisplay: false,
        boxdVersion: "0.0.0",
      }),
    });
    expect(response.status).toBe(201);
    const { machineId } = (await response.json()) as { machineId: string };

    const listed = await world.berth(["machines", "enrolled", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((listed.json() as Enrolled).machines).toEqual([
      expect.objectContaining({ id: machineId, name: "workstation", state: "offline" }),
    ]);
    const table = await world.berth(["machines", "enrolled"]);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+STATE\s+OS\/ARCH/);
    expect(table.stdout).toContain("workstation");

    const renamed = await world.berth(["machines", "rename", machineId, "desk", "--json"]);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.json()).toEqual({ machine: { machineId, name: "desk" } });

    // Not connected: the agent rotates when it next connects.
    const rotated = await world.berth(["machines", "rotate", machineId]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain(
      `${machineId}: its agent will rotate its credential when it next connects`,
    );

    const revoked = await world.berth(["machines", "revoke", machineId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`${machineId} revoked at`);
    const after = await world.berth(["machines", "enrolled", "--json"]);
    expect((after.json() as Enrolled).machines[0]).toMatchObject({
      name: "desk",
      state: "revoked",
    });

    // The sessions' list keeps working beside the subcommands.
    const boxes = await world.berth(["machines", "--json"]);
    expect(boxes.code, boxes.stderr).toBe(0);
    expect(boxes.json()).toEqual({ machines: [] });

    // `berth swap` (issue 41): a revoked (so offline) machine is refused, nothing moved; the group box is
    // a target like any other (woken first).
    const session = await world.newSession();
    const offline = await world.berth(["swap", session, machineId]);
    expect(offline.code).not.toBe(0);
    expect(offline.stderr).toContain("offline");
    const home = await world.berth(["swap", session, "group", "--json"]);
    expect(home.code, home.stderr).toBe(0);
    expect(home.json()).toEqual({
      swap: {
        sessionId: session,
        activeSandboxId: null,
        activeEpoch: 1,
        from: null,
        terminals: { ended: 0, leftOpen: 0 },
      },
    });
  });
});
