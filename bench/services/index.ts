import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiEnvSchema, createBerthApi, serveApi } from "@berth/api";
import { createBerthClient } from "@berth/client";
import { seedTokenOwner } from "@berth/client/testing";
import { LocalBackend } from "@berth/sandbox";
import { removeLocalBoxes } from "@berth/sandbox/testing";
import { createTestDatabase } from "@berth/testkit";
import pg from "pg";
import { defineBenchmark } from "../harness/benchmark.ts";
import { interleaveCalls } from "../harness/load.ts";
import { median, quantile, round } from "../harness/stats.ts";

const GOAL_RATIO = 1.5;
const SECRET = "bench-services-secret-0123456789abcdef01";
const FILE_BYTES = 4096;

/** Calls per block of the interleaving: few enough that the machine's drift hits both sides. */
const BLOCK = 50;

/** Times `runs` calls of Berth and of the baseline, alternating blocks (see interleaveCalls). */
function interleaved(
  runs: number,
  berth: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
): Promise<{ berth: number[]; baseline: number[] }> {
  return interleaveCalls({ calls: runs, block: BLOCK, berth, baseline });
}

/** Transactions the database has committed: each autocommit statement is one round trip. */
async function transactions(client: pg.Client, database: string): Promise<number> {
  const result = await client.query<{ n: string }>(
    "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1",
    [database],
  );
  return Number(result.rows[0]?.n ?? 0);
}

export default defineBenchmark({
  name: "services",
  description:
    "fs.read (4 KB) and exec `true` through client → API → boxd on a warm box, against the same boxd call plus one acquire and one release statement through raw pg",
  async run(context) {
    const runs = context.mode === "short" ? 20 : 1000;
    await using database = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "berth-bench-services-"));
    const api = createBerthApi(
      apiEnvSchema.parse({
        DATABASE_URL: database.url,
        BERTH_SECRET: SECRET,
        BERTH_DATA_DIR: dataDir,
      }),
    );
    const served = await serveApi(api);
    const stats = new pg.Client({ connectionString: database.url });
    await stats.connect();
    try {
      const db = database.prisma;
      const { workspaceId, token } = await seedTokenOwner(db, {
        url: served.url,
        slug: "bench-services",
        origin: "http://127.0.0.1:3000",
      });
      const session = await db.session.create({
        data: { workspaceId, sandboxGroupId: crypto.randomUUID(), backend: "local" },
      });
      const berth = createBerthClient({ url: served.url, token });
      const scope = { workspaceId, sessionId: session.id };
      context.progress("warming the box");
      await berth.fs.write.mutate({ ...scope, path: "file.txt", content: "x".repeat(FILE_BYTES) });
      await berth.fs.read.query({ ...scope, path: "file.txt" });

      const lease = await db.sandboxLease.findFirstOrThrow({
        where: { workspaceId },
      });
      const box = await new LocalBackend({ dataDir, secret: SECRET, isolation: "auto" }).connect(
        lease.instanceId ?? "",
      );
      // Database round trips per Berth call, counted over an interleaved run: the database's
      // committed transactions, less the baseline's two statements per call and the reading's own.
      const roundTrips = async (
        run: () => Promise<{ berth: number[]; baseline: number[] }>,
      ): Promise<{ berth: number[]; baseline: number[]; roundTrips: number }> => {
        const before = await transactions(stats, database.name);
        const times = await run();
        const committed = (await transactions(stats, database.name)) - before - 1;
        return {
          ...times,
          roundTrips: (committed - 2 * times.baseline.length) / times.berth.length,
        };
      };
      const raw = new pg.Client({ connectionString: database.url });
      await raw.connect();
      // The minimum a fenced call costs the database: one acquire and one release statement.
      const acquireRelease = async () => {
        const holder = `direct:${crypto.randomUUID()}`;
        await raw.query(
          "SELECT * FROM berth_lease_acquire($1::uuid, $2::uuid, 'direct', $3, NULL, 90000, 600000, NULL, now())",
          [workspaceId, session.id, holder],
        );
        await raw.query(
          "SELECT * FROM berth_lease_release($1::uuid, $2::uuid, 'direct', $3, 900000, now())",
          [workspaceId, lease.id, holder],
        );
      };
      try {
        const readBox = () => berth.fs.read.query({ ...scope, path: "file.txt" });
        const readBaseline = async () => {
          await acquireRelease();
          await box.read({ path: "file.txt" });
        };
        const execBox = () => berth.exec.run.mutate({ ...scope, argv: ["true"] });
        const execBaseline = async () => {
          await acquireRelease();
          await box.exec({ argv: ["true"] });
        };
        await interleaved(Math.min(50, runs), readBox, readBaseline);

        context.progress(`fs.read × ${String(runs)}, interleaved with its baseline`);
        const read = await roundTrips(() => interleaved(runs, readBox, readBaseline));
        context.progress(`exec true × ${String(runs)}, interleaved with its baseline`);
        const exec = await roundTrips(() => interleaved(runs, execBox, execBaseline));
        const ratio = median(read.berth) / median(read.baseline);
        const execRatio = median(exec.berth) / median(exec.baseline);
        return {
          ratio,
          goal: `ratio<=${String(GOAL_RATIO)}`,
          goalMet: ratio <= GOAL_RATIO && execRatio <= GOAL_RATIO,
          figures: {
            read_p50_ms: median(read.berth),
            read_p99_ms: quantile(read.berth, 0.99),
            read_baseline_p50_ms: median(read.baseline),
            exec_p50_ms: median(exec.berth),
            exec_p99_ms: quantile(exec.berth, 0.99),
            exec_baseline_p50_ms: median(exec.baseline),
            exec_ratio: execRatio,
            read_db_round_trips: read.roundTrips,
            exec_db_round_trips: exec.roundTrips,
            runs,
          },
          table: [
            {
              case: "fs.read 4 KB: client → API → boxd",
              p50_ms: round(median(read.berth)),
              p99_ms: round(quantile(read.berth, 0.99)),
            },
            {
              case: "fs.read 4 KB: boxd + acquire/release SQL",
              p50_ms: round(median(read.baseline)),
              p99_ms: round(quantile(read.baseline, 0.99)),
            },
            {
              case: "exec true: client → API → boxd",
              p50_ms: round(median(exec.berth)),
              p99_ms: round(quantile(exec.berth, 0.99)),
            },
            {
              case: "exec true: boxd + acquire/release SQL",
              p50_ms: round(median(exec.baseline)),
              p99_ms: round(quantile(exec.baseline, 0.99)),
            },
          ],
        };
      } finally {
        await raw.end();
      }
    } finally {
      await stats.end();
      await served.close();
      await api.close();
      await removeLocalBoxes({ dataDir, secret: SECRET });
    }
  },
});
