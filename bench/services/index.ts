import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiEnvSchema, type BerthApi, createBerthApi, serveApi } from "@berth/api";
import { createBerthClient } from "@berth/client";
import { seedTokenOwner } from "@berth/client/testing";
import { LocalBackend } from "@berth/sandbox";
import { removeLocalBoxes } from "@berth/sandbox/testing";
import { createTestDatabase } from "@berth/testkit";
import pg from "pg";
import { defineBenchmark } from "../harness/benchmark.ts";
import { interleaveCalls } from "../harness/load.ts";
import { PgRoundTripCounter } from "../harness/pgRoundTrips.ts";
import { median, quantile, round } from "../harness/stats.ts";
import { HERD_SIZE, HERD_SLACK_MS, measureHerd } from "./herd.ts";

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

/** Calls counted for the database round trips per call. */
const COUNTED_CALLS = 20;

/**
 * Database round trips per fs.read and per exec, on a second API whose connections go through
 * a counting relay: steady state (its pool, prepared statements and box client warmed by one
 * call each), every deferred holder release landed before a count is read.
 */
async function countRoundTrips(
  databaseUrl: string,
  apiOn: (url: string) => BerthApi,
  caller: { token: string; scope: { workspaceId: string; sessionId: string } },
): Promise<{ read: number; exec: number }> {
  const { counter, url } = await PgRoundTripCounter.start(databaseUrl);
  const api = apiOn(url);
  const served = await serveApi(api);
  const { token, scope } = caller;
  try {
    const berth = createBerthClient({ url: served.url, token });
    const perCall = async (call: () => Promise<unknown>): Promise<number> => {
      await call();
      await api.settled();
      const before = counter.roundTrips;
      for (let i = 0; i < COUNTED_CALLS; i += 1) await call();
      await api.settled();
      return (counter.roundTrips - before) / COUNTED_CALLS;
    };
    return {
      read: await perCall(() => berth.fs.read.query({ ...scope, path: "file.txt" })),
      exec: await perCall(() => berth.exec.run.mutate({ ...scope, argv: ["true"] })),
    };
  } finally {
    await served.close();
    await api.close();
    await counter.close();
  }
}

export default defineBenchmark({
  name: "services",
  description:
    "fs.read (4 KB) and exec `true` through client → API → boxd on a warm box, against the same boxd call plus one acquire and one release statement through raw pg; and 50 concurrent fs.list on a cold session against one",
  async run(context) {
    const runs = context.mode === "short" ? 20 : 1000;
    await using database = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "berth-bench-services-"));
    const apiOn = (url: string) =>
      createBerthApi(
        apiEnvSchema.parse({ DATABASE_URL: url, BERTH_SECRET: SECRET, BERTH_DATA_DIR: dataDir }),
      );
    const api = apiOn(database.url);
    const served = await serveApi(api);
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
        const read = await interleaved(runs, readBox, readBaseline);
        context.progress(`exec true × ${String(runs)}, interleaved with its baseline`);
        const exec = await interleaved(runs, execBox, execBaseline);
        context.progress("database round trips per call, through a counting relay");
        const roundTrips = await countRoundTrips(database.url, apiOn, { token, scope });
        const herdRounds = context.mode === "short" ? 1 : 5;
        context.progress(
          `${String(HERD_SIZE)} concurrent fs.list on a cold session against one, × ${String(herdRounds)}`,
        );
        const herd = await measureHerd({ db, berth, workspaceId, rounds: herdRounds });
        const ratio = median(read.berth) / median(read.baseline);
        const execRatio = median(exec.berth) / median(exec.baseline);
        return {
          ratio,
          goal: `ratio<=${String(GOAL_RATIO)},herd50_ms<=cold_call_ms+${String(HERD_SLACK_MS)}`,
          goalMet:
            ratio <= GOAL_RATIO &&
            execRatio <= GOAL_RATIO &&
            herd.herd50Ms <= herd.coldCallMs + HERD_SLACK_MS,
          figures: {
            read_p50_ms: median(read.berth),
            read_p99_ms: quantile(read.berth, 0.99),
            read_baseline_p50_ms: median(read.baseline),
            exec_p50_ms: median(exec.berth),
            exec_p99_ms: quantile(exec.berth, 0.99),
            exec_baseline_p50_ms: median(exec.baseline),
            exec_ratio: execRatio,
            herd50_ms: round(herd.herd50Ms, 1),
            cold_call_ms: round(herd.coldCallMs, 1),
            herd_rounds: herd.rounds,
            read_db_round_trips: roundTrips.read,
            exec_db_round_trips: roundTrips.exec,
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
            {
              case: `${String(HERD_SIZE)} × fs.list on a cold session, until the last answer (median)`,
              p50_ms: round(herd.herd50Ms),
              p99_ms: "",
            },
            {
              case: "1 × fs.list on a cold session (median)",
              p50_ms: round(herd.coldCallMs),
              p99_ms: "",
            },
          ],
        };
      } finally {
        await raw.end();
      }
    } finally {
      await served.close();
      await api.close();
      await removeLocalBoxes({ dataDir, secret: SECRET });
    }
  },
});
