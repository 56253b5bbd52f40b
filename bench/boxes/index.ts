import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBoxClient, deriveBoxToken } from "@berth/box-protocol";
import {
  boxdArgv,
  DatabaseClock,
  defaultBoxdEntry,
  defaultLeaseConfig,
  LeaseSystem,
  LocalBackend,
  SpawnerSystem,
} from "@berth/sandbox";
import { createTestDatabase } from "@berth/testkit";
import { defineBenchmark } from "../harness/benchmark.ts";
import { median, quantile, round } from "../harness/stats.ts";

const GOAL_RATIO = 1.3;
const GOAL_P50_MS = 300;
const SECRET = "bench-boxes-secret-0123456789abcdef0123";

/**
 * Baseline: start boxd directly on a folder — the entry and node flags boxes use (the flags its
 * code cache was made under: without them V8 refuses it) — and wait for its first exec.
 */
async function bareBoxd(root: string): Promise<number> {
  const [node = process.execPath, ...argv] = boxdArgv({
    entry: defaultBoxdEntry(),
    logLevel: "info",
  });
  const started = performance.now();
  const instanceId = `bare-${crypto.randomUUID()}`;
  const token = deriveBoxToken({ secret: SECRET, instanceId });
  const child = spawn(node, argv, {
    env: {
      ...process.env,
      BOXD_TOKEN: token,
      BOXD_INSTANCE_ID: instanceId,
      BOXD_ROOT: root,
      BOXD_PORT: "0",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /"port":(\d+)/.exec(out);
        if (match?.[1] !== undefined) resolve(Number(match[1]));
      });
      child.once("exit", (code) => reject(new Error(`boxd exited ${String(code)}`)));
    });
    const client = createBoxClient({ baseUrl: `http://127.0.0.1:${String(port)}`, token });
    const result = await client.exec({ argv: ["true"] });
    if (result.exitCode !== 0) throw new Error("`true` failed");
    return performance.now() - started;
  } finally {
    child.kill("SIGKILL");
  }
}

export default defineBenchmark({
  name: "boxes",
  description: "cold start through the lease and the local backend, against starting boxd directly",
  async run(context) {
    const runs = context.mode === "short" ? 3 : 30;
    await using database = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "berth-bench-boxes-"));
    const db = database.prisma;
    const backend = new LocalBackend({ dataDir, secret: SECRET, isolation: "auto" });
    const resources = { db, clock: new DatabaseClock(db), config: defaultLeaseConfig };
    const leases = new LeaseSystem(resources);
    const spawner = new SpawnerSystem({ resources, backend });
    const workspace = await db.workspace.create({ data: { slug: "bench-boxes", name: "Bench" } });
    const berth: number[] = [];
    const baseline: number[] = [];
    let isolation = "unknown";
    try {
      for (let i = 0; i < runs; i += 1) {
        context.progress(`run ${String(i + 1)}/${String(runs)}`);
        const session = await db.session.create({
          data: {
            workspaceId: workspace.id,
            sandboxGroupId: crypto.randomUUID(),
            backend: "local",
          },
        });
        const started = performance.now();
        const outcome = await leases.acquire({
          workspaceId: workspace.id,
          sessionId: session.id,
          kind: "direct",
          holderId: "direct:bench",
        });
        if (outcome.role !== "spawner") throw new Error(`expected a spawner, got ${outcome.role}`);
        const box = await spawner.establish(outcome.lease);
        const result = await (await backend.connect(box.instanceId)).exec({ argv: ["true"] });
        if (result.exitCode !== 0) throw new Error("`true` failed in the box");
        berth.push(performance.now() - started);
        isolation =
          (await backend.inventory()).find((b) => b.instanceId === box.instanceId)?.isolation ??
          isolation;
        await backend.terminate(box.instanceId);

        const root = await mkdtemp(join(dataDir, "bare-"));
        baseline.push(await bareBoxd(root));
      }
    } finally {
      for (const box of await backend.inventory()) await backend.terminate(box.instanceId);
      await rm(dataDir, { recursive: true, force: true });
    }
    const p50 = median(berth);
    const ratio = p50 / median(baseline);
    return {
      ratio,
      goal: `ratio<=${String(GOAL_RATIO)},p50_ms<${String(GOAL_P50_MS)}`,
      goalMet: ratio <= GOAL_RATIO && p50 < GOAL_P50_MS,
      figures: {
        p50_ms: p50,
        p95_ms: quantile(berth, 0.95),
        baseline_p50_ms: median(baseline),
        baseline_p95_ms: quantile(baseline, 0.95),
        runs,
        isolation,
      },
      table: [
        {
          case: "lease + local backend → first exec",
          p50_ms: round(p50),
          p95_ms: round(quantile(berth, 0.95)),
          runs,
        },
        {
          case: "boxd alone → first exec",
          p50_ms: round(median(baseline)),
          p95_ms: round(quantile(baseline, 0.95)),
          runs,
        },
      ],
    };
  },
});
