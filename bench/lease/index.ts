import { createDbClient } from "@berth/db";
import { DatabaseClock, defaultLeaseConfig, LeaseSystem } from "@berth/sandbox";
import { createTestDatabase } from "@berth/testkit";
import { defineBenchmark, type BenchContext } from "../harness/benchmark.ts";
import { interleave, runClosedLoop, type LoadResult } from "../harness/load.ts";
import { median, round } from "../harness/stats.ts";
import { RawLeaseCalls } from "./baseline.ts";
import { seedLeaseWorld, type BenchSession, type LeaseBenchWorld } from "./world.ts";

const HERD = 100;
const GOAL_RATIO = 1.5;
const GOAL_OPS = 1000;

/**
 * The short mode runs inside CI beside other suites that share Postgres's 100 connections, so it
 * opens a quarter of the full run's (world, raw pg and herd pools: 3 × clients).
 */
const timings = {
  short: { clients: 8, warmupMs: 300, roundMs: 500, rounds: 2, herds: 2 },
  full: { clients: 32, warmupMs: 2000, roundMs: 3000, rounds: 6, herds: 5 },
} as const;

/** One attach + release of a `direct` holder on `pick(client)`'s lease, through Berth or raw pg. */
function attachRelease(options: {
  world: LeaseBenchWorld;
  raw: RawLeaseCalls;
  pick: (client: number) => BenchSession;
}) {
  let next = 0;
  const holder = (client: number) => `direct:${String(client)}-${String((next += 1))}`;
  return {
    berth: async (client: number) => {
      const target = options.pick(client);
      const holderId = holder(client);
      const { lease } = await options.world.leases.acquire({ ...target, kind: "direct", holderId });
      await options.world.leases.release({
        workspaceId: target.workspaceId,
        leaseId: lease.id,
        kind: "direct",
        holderId,
      });
    },
    baseline: async (client: number) => {
      const target = options.pick(client);
      const holderId = holder(client);
      const { leaseId } = await options.raw.acquire({ ...target, holderId });
      await options.raw.release({ workspaceId: target.workspaceId, leaseId, holderId });
    },
  };
}

async function measure(context: BenchContext, ops: ReturnType<typeof attachRelease>) {
  const t = timings[context.mode];
  const { clients } = t;
  return interleave({
    rounds: t.rounds,
    warmup: async () => {
      await runClosedLoop({ clients, durationMs: t.warmupMs, op: ops.berth });
      await runClosedLoop({ clients, durationMs: t.warmupMs, op: ops.baseline });
    },
    berth: () => runClosedLoop({ clients, durationMs: t.roundMs, op: ops.berth }),
    baseline: () => runClosedLoop({ clients, durationMs: t.roundMs, op: ops.baseline }),
  });
}

/** 100 acquires on one cold group over `clients` connections: how long until all hold it, and how many spawners. */
async function herd(options: {
  url: string;
  workspaceId: string;
  db: LeaseBenchWorld["db"];
  clients: number;
}) {
  const session = await options.db.session.create({
    data: {
      workspaceId: options.workspaceId,
      sandboxGroupId: crypto.randomUUID(),
      backend: "local",
    },
  });
  const db = createDbClient({ connectionString: options.url, maxConnections: options.clients });
  try {
    const leases = new LeaseSystem({
      db,
      clock: new DatabaseClock(db),
      config: defaultLeaseConfig,
    });
    await leases.readByGroup({
      workspaceId: options.workspaceId,
      sandboxGroupId: session.sandboxGroupId,
    });
    const start = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: HERD }, (_, i) =>
        leases.acquire({
          workspaceId: options.workspaceId,
          sessionId: session.id,
          kind: "viewer",
          holderId: `viewer:${String(i)}`,
        }),
      ),
    );
    const ms = performance.now() - start;
    return { ms, spawners: outcomes.filter((o) => o.role === "spawner").length };
  } finally {
    await db.$disconnect();
  }
}

function row(name: string, side: string, result: LoadResult) {
  return {
    case: name,
    side,
    ops_per_s: round(result.opsPerSecond, 0),
    p50_ms: round(result.p50Ms),
    p99_ms: round(result.p99Ms),
    ops: result.ops,
  };
}

export default defineBenchmark({
  name: "lease",
  description: `warm attach+release with ${String(timings.full.clients)} clients, against raw pg calling the same SQL`,
  async run(context) {
    const { clients } = timings[context.mode];
    await using database = await createTestDatabase();
    const world = await seedLeaseWorld({ url: database.url, clients });
    const raw = new RawLeaseCalls({ url: database.url, connections: clients });
    try {
      context.progress("(a) warm attach+release, one lease per client");
      const own = await measure(
        context,
        attachRelease({ world, raw, pick: (client) => world.own[client] ?? world.shared }),
      );
      context.progress("(b) the same on one shared lease");
      const shared = await measure(
        context,
        attachRelease({ world, raw, pick: () => world.shared }),
      );
      context.progress(`(d) herds of ${String(HERD)} acquires on a cold group`);
      const herds = [];
      for (let i = 0; i < timings[context.mode].herds; i += 1) {
        herds.push(
          await herd({ url: database.url, workspaceId: world.workspaceId, db: world.db, clients }),
        );
      }

      const ratio = own.baseline.opsPerSecond / own.berth.opsPerSecond;
      const spawners = herds.map((h) => h.spawners);
      const goalMet =
        ratio <= GOAL_RATIO && own.berth.opsPerSecond >= GOAL_OPS && spawners.every((n) => n === 1);
      return {
        ratio,
        goal: `ratio<=${String(GOAL_RATIO)},attach_ops>=${String(GOAL_OPS)}`,
        goalMet,
        figures: {
          attach_ops: own.berth.opsPerSecond,
          attach_p50_ms: own.berth.p50Ms,
          attach_p99_ms: own.berth.p99Ms,
          baseline_ops: own.baseline.opsPerSecond,
          contended_ops: shared.berth.opsPerSecond,
          contended_p99_ms: shared.berth.p99Ms,
          contended_ratio: shared.baseline.opsPerSecond / shared.berth.opsPerSecond,
          herd_ms: median(herds.map((h) => h.ms)),
          herd_spawners: Math.max(...spawners),
          clients,
        },
        table: [
          row("(a) own lease", "berth", own.berth),
          row("(a) own lease", "raw pg", own.baseline),
          row("(b) shared lease", "berth", shared.berth),
          row("(b) shared lease", "raw pg", shared.baseline),
          ...herds.map((h, i) => ({
            case: `(d) herd ${String(i + 1)}`,
            side: "berth",
            ops_per_s: round((HERD / h.ms) * 1000, 0),
            p50_ms: round(h.ms),
            p99_ms: "",
            ops: HERD,
          })),
        ],
      };
    } finally {
      await raw.pool.end();
      await world.db.$disconnect();
    }
  },
});
