// Run as a child process by archiveMemory.test.ts: captures (or restores) one lease's workspace
// and prints the peak memory growth of this process and of the box's boxd, as JSON.
import { join } from "node:path";
import { createDbClient } from "@berth/db";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import { defaultLeaseConfig } from "../lease/config.ts";
import { LeaseSystem } from "../lease/leaseSystem.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { ManualClock } from "../testing/manualClock.ts";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { boxMemory } from "../testing/boxProcesses.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";

interface Group {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly sandboxGroupId: string;
}
const input = JSON.parse(process.argv[2] ?? "{}") as {
  mode: "capture" | "restore";
  url: string;
  dataDir: string;
  /** A small workspace handled first, so one-time start-up costs do not count as growth. */
  warmUp: Group;
  measured: Group;
  now: string;
  /** The test backend's secret, so this process derives the same box tokens. */
  secret: string;
};
const db = createDbClient({ connectionString: input.url, maxConnections: 4 });
const resources = { db, clock: new ManualClock(new Date(input.now)), config: defaultLeaseConfig };
const backend = new LocalBackend({
  dataDir: input.dataDir,
  secret: input.secret,
  isolation: "auto",
});
const store = new FilesystemArchiveStore({ root: join(input.dataDir, "archives") });
const leases = new LeaseSystem(resources);
const MiB = 1024 * 1024;

async function capture(group: Group): Promise<Record<string, unknown>> {
  const lease = await leases.readByGroup(group);
  if (lease?.instanceId == null) throw new Error("the probe needs a warm lease");
  const boxdIdle = await boxMemory(lease.instanceId, "VmRSS");
  const base = process.memoryUsage().rss;
  const captured = await new WorkspaceArchiver({
    resources,
    backends: BackendRegistry.of(backend),
    store,
  }).capture(lease, {
    actor: "probe",
  });
  if (captured.kind !== "published") throw new Error(`capture: ${JSON.stringify(captured)}`);
  return {
    revision: captured.revision,
    growthMiB: (process.resourceUsage().maxRSS * 1024 - base) / MiB,
    boxdGrowthMiB: ((await boxMemory(lease.instanceId, "VmHWM")) - boxdIdle) / MiB,
    boxdIdle,
  };
}

async function restore(group: Group): Promise<Record<string, unknown>> {
  const spawn = await leases.acquire({ ...group, kind: "direct", holderId: "direct:probe" });
  if (spawn.role !== "spawner") throw new Error(`acquire: ${spawn.role}`);
  const base = process.memoryUsage().rss;
  const restored = await new SpawnerSystem({
    resources,
    backends: BackendRegistry.of(backend),
    restorer: new ArchiveRestorer({ db, store }),
  }).establish(spawn.lease);
  return {
    instanceId: restored.instanceId,
    growthMiB: (process.resourceUsage().maxRSS * 1024 - base) / MiB,
    boxdPeak: await boxMemory(restored.instanceId, "VmHWM"),
  };
}

const run = input.mode === "capture" ? capture : restore;
await run(input.warmUp);
const report = await run(input.measured);
process.stdout.write(`${JSON.stringify(report)}\n`);
await db.$disconnect();
