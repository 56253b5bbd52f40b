import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { writeWorkspaceTree } from "../testing/workspaceTree.ts";
import { seedSession, settledWrite, useLeaseWorld, type LeaseWorld } from "./leaseFixture.ts";
import { killBox, TEST_BOX_SECRET, useLocalBackend } from "./spawnerFixture.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";

const world = useLeaseWorld();
const local = useLocalBackend();

/** A warm box holding a generated tree, with one admitted write so a capture has work. */
async function warmBox(w: LeaseWorld, shape: { bytes: number; entries: number }) {
  const session = await seedSession(w.db);
  const holderId = "direct:memory";
  const acquired = await w.leases.acquire({ ...session, kind: "direct", holderId });
  if (acquired.role !== "spawner") throw new Error(acquired.role);
  const box = await new SpawnerSystem({
    resources: { db: w.db, clock: w.clock, config: w.config },
    backends: BackendRegistry.of(local.backend),
  }).establish(acquired.lease);
  const workspace = join(local.dataDir, "boxes", box.instanceId, "workspace");
  const tree = await writeWorkspaceTree(workspace, { ...shape, seed: 20 });
  await settledWrite(w, { session, lease: box.lease, holder: { kind: "direct", id: holderId } });
  return { session, instanceId: box.instanceId, tree };
}

/** The bound on peak memory growth while a workspace is captured and restored. */
const BOUND_MIB = 64;

describe("bounded memory", () => {
  it("capturing and restoring a 20 MB, 2,000-entry workspace grows no process by 64 MiB", async () => {
    const w = world.current;
    const small = await warmBox(w, { bytes: 256 * 1024, entries: 50 });
    const big = await warmBox(w, {
      bytes: 20 * 1024 * 1024,
      entries: 2_000,
    });
    const probe = async (mode: "capture" | "restore") => {
      const argument = JSON.stringify({
        mode,
        url: w.url,
        dataDir: local.dataDir,
        warmUp: small.session,
        measured: big.session,
        now: (await w.clock.now()).toISOString(),
        secret: TEST_BOX_SECRET,
      });
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "archiveMemoryProbe.ts"), argument],
        { cwd: import.meta.dirname, maxBuffer: 1024 * 1024 },
      );
      return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, number>;
    };

    const captured = await probe("capture");
    for (const { session, instanceId } of [small, big]) {
      await killBox(instanceId);
      const lease = await w.leases.readByGroup(session);
      await w.warming.markInstanceLost({
        workspaceId: session.workspaceId,
        leaseId: lease?.id ?? "",
        expectedEpoch: lease?.epoch ?? -1,
        instanceId,
        actor: "test",
      });
    }
    const restored = await probe("restore");

    expect(big.tree.bytes).toBeGreaterThan(19 * 1024 * 1024);
    expect(captured.growthMiB).toBeLessThan(BOUND_MIB);
    expect(captured.boxdGrowthMiB).toBeLessThan(BOUND_MIB);
    expect(restored.growthMiB).toBeLessThan(BOUND_MIB);
    // The new box's boxd, against the idle boxd the capture measured.
    expect(((restored.boxdPeak ?? 0) - (captured.boxdIdle ?? 0)) / 1024 / 1024).toBeLessThan(
      BOUND_MIB,
    );
    const client = await local.backend.connect(String(restored.instanceId));
    expect((await client.manifest()).revision).toBe(String(captured.revision));
  });
});
