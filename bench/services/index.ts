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
import { median, quantile, round } from "../harness/stats.ts";

const GOAL_RATIO = 1.5;
const SECRET = "bench-services-secret-0123456789abcdef01";
const FILE_BYTES = 4096;

interface Timed {
  readonly ms: number[];
}

async function time(runs: number, call: () => Promise<unknown>): Promise<Timed> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await call();
    ms.push(performance.now() - started);
  }
  return { ms };
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
        const warmup = Math.min(50, runs);
        await time(warmup, () => berth.fs.read.query({ ...scope, path: "file.txt" }));
        await time(warmup, async () => {
          await acquireRelease();
          await box.read({ path: "file.txt" });
        });

        context.progress(`fs.read × ${String(runs)}`);
        const before = await transactions(stats, database.name);
        const read = await time(runs, () => berth.fs.read.query({ ...scope, path: "file.txt" }));
        const readTransactions = ((await transactions(stats, database.name)) - before - 1) / runs;
        const readBaseline = await time(runs, async () => {
          await acquireRelease();
          await box.read({ path: "file.txt" });
        });
        context.progress(`exec true × ${String(runs)}`);
        const execBefore = await transactions(stats, database.name);
        const exec = await time(runs, () => berth.exec.run.mutate({ ...scope, argv: ["true"] }));
        const execTransactions =
          ((await transactions(stats, database.name)) - execBefore - 1) / runs;
        const execBaseline = await time(runs, async () => {
          await acquireRelease();
          await box.exec({ argv: ["true"] });
        });
        const ratio = median(read.ms) / median(readBaseline.ms);
        const execRatio = median(exec.ms) / median(execBaseline.ms);
        return {
          ratio,
          goal: `ratio<=${String(GOAL_RATIO)}`,
          goalMet: ratio <= GOAL_RATIO && execRatio <= GOAL_RATIO,
          figures: {
            read_p50_ms: median(read.ms),
            read_p99_ms: quantile(read.ms, 0.99),
            read_baseline_p50_ms: median(readBaseline.ms),
            exec_p50_ms: median(exec.ms),
            exec_p99_ms: quantile(exec.ms, 0.99),
            exec_baseline_p50_ms: median(execBaseline.ms),
            exec_ratio: execRatio,
            read_db_round_trips: readTransactions,
            exec_db_round_trips: execTransactions,
            runs,
          },
          table: [
            {
              case: "fs.read 4 KB: client → API → boxd",
              p50_ms: round(median(read.ms)),
              p99_ms: round(quantile(read.ms, 0.99)),
            },
            {
              case: "fs.read 4 KB: boxd + acquire/release SQL",
              p50_ms: round(median(readBaseline.ms)),
              p99_ms: round(quantile(readBaseline.ms, 0.99)),
            },
            {
              case: "exec true: client → API → boxd",
              p50_ms: round(median(exec.ms)),
              p99_ms: round(quantile(exec.ms, 0.99)),
            },
            {
              case: "exec true: boxd + acquire/release SQL",
              p50_ms: round(median(execBaseline.ms)),
              p99_ms: round(quantile(execBaseline.ms, 0.99)),
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
