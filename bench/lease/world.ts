import { createDbClient, type DbClient } from "@berth/db";
import { DatabaseClock, defaultLeaseConfig, LeaseSystem, WarmingSystem } from "@berth/sandbox";

export interface BenchSession {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly leaseId: string;
}

export interface LeaseBenchWorld {
  readonly db: DbClient;
  readonly leases: LeaseSystem;
  /** One warm lease per client, each kept warm by a background viewer. */
  readonly own: readonly BenchSession[];
  /** One warm lease every client shares. */
  readonly shared: BenchSession;
  readonly workspaceId: string;
}

/** Seeds `clients` + 1 warm leases over a pool of `clients` connections, through Berth's own API. */
export async function seedLeaseWorld(options: {
  url: string;
  clients: number;
}): Promise<LeaseBenchWorld> {
  const db = createDbClient({ connectionString: options.url, maxConnections: options.clients });
  const resources = { db, clock: new DatabaseClock(db), config: defaultLeaseConfig };
  const leases = new LeaseSystem(resources);
  const warming = new WarmingSystem(resources);
  const workspace = await db.workspace.create({ data: { slug: "bench", name: "Bench" } });

  const warmSession = async (index: number): Promise<BenchSession> => {
    const session = await db.session.create({
      data: { workspaceId: workspace.id, sandboxGroupId: crypto.randomUUID(), backend: "local" },
    });
    const spawn = await leases.acquire({
      workspaceId: workspace.id,
      sessionId: session.id,
      kind: "viewer",
      holderId: "viewer:background",
    });
    const fence = {
      workspaceId: workspace.id,
      leaseId: spawn.lease.id,
      expectedEpoch: spawn.lease.epoch,
    };
    await warming.recordAllocation({ ...fence, allocationId: `alloc-${String(index)}` });
    await warming.recordCreated({
      ...fence,
      allocationId: `alloc-${String(index)}`,
      instanceId: `box-${String(index)}`,
    });
    const commit = await warming.commitWarm({ ...fence, instanceId: `box-${String(index)}` });
    if (commit.outcome !== "committed")
      throw new Error(`could not warm lease ${String(index)}: ${commit.reason}`);
    return { workspaceId: workspace.id, sessionId: session.id, leaseId: spawn.lease.id };
  };

  const own = await Promise.all(Array.from({ length: options.clients }, (_, i) => warmSession(i)));
  const shared = await warmSession(options.clients);
  return { db, leases, own, shared, workspaceId: workspace.id };
}
