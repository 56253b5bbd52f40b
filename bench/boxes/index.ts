import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBoxClient, deriveBoxToken, type BoxClient } from "@berth/box-protocol";
import {
  BackendRegistry,
  boxdArgv,
  DatabaseClock,
  defaultBoxdEntry,
  defaultLeaseConfig,
  LeaseSystem,
  LocalBackend,
  localExecutionProfile,
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

/** The p50 of `exec true` in `box`, `count` times in a row. */
async function execLatency(box: BoxClient, count: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const result = await box.exec({ argv: ["true"] });
    if (result.exitCode !== 0) throw new Error("`true` failed in the neighbour box");
    times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * A neighbour's latency: `exec true` in one box, idle and then while another box keeps more
 * busy processes than the machine has cores (a box's CPU share is what keeps its neighbour
 * answering; a figure, never a test assertion).
 */
async function neighbourLatency(
  backend: LocalBackend,
  boxes: { noisy: string; quiet: string },
  count: number,
): Promise<{ idle: number; loaded: number }> {
  const quiet = await backend.connect(boxes.quiet);
  const noisy = await backend.connect(boxes.noisy);
  const idle = await execLatency(quiet, count);
  // Ended by the box's terminate below: its rejection is expected, and caught at once.
  const hogs = noisy
    .exec({
      argv: ["sh", "-c", "for i in 1 2 3 4 5 6 7 8; do (while :; do :; done) & done; sleep 20"],
      timeoutMs: 20_000,
    })
    .catch(() => undefined);
  try {
    // Let the hogs take the cores before measuring.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { idle, loaded: await execLatency(quiet, count) };
  } finally {
    await backend.terminate(boxes.noisy);
    await hogs;
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
    const spawner = new SpawnerSystem({ resources, backends: BackendRegistry.of(backend) });
    const workspace = await db.workspace.create({ data: { slug: "bench-boxes", name: "Bench" } });
    const berth: number[] = [];
    const baseline: number[] = [];
    let isolation = "unknown";
    let network = "unknown";
    let neighbour = { idle: Number.NaN, loaded: Number.NaN };
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
        const info = (await backend.inventory()).find((b) => b.instanceId === box.instanceId);
        isolation = info?.isolation ?? isolation;
        network = info?.network ?? network;
        await backend.terminate(box.instanceId);

        const root = await mkdtemp(join(dataDir, "bare-"));
        baseline.push(await bareBoxd(root));
      }
      context.progress("a neighbour's exec, idle and beside a busy box");
      const [noisy, quiet] = await Promise.all(
        ["noisy", "quiet"].map((name) =>
          backend.create({
            metadata: {
              workspaceId: workspace.id,
              leaseId: `bench-${name}`,
              epoch: 1,
              allocationId: `bench-${name}-${crypto.randomUUID()}`,
            },
            profile: localExecutionProfile,
          }),
        ),
      );
      neighbour = await neighbourLatency(
        backend,
        { noisy: noisy?.instanceId ?? "", quiet: quiet?.instanceId ?? "" },
        context.mode === "short" ? 5 : 50,
      );
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
        network,
        neighbour_idle_p50_ms: neighbour.idle,
        neighbour_loaded_p50_ms: neighbour.loaded,
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
        { case: "neighbour exec, idle", p50_ms: round(neighbour.idle), p95_ms: "", runs: "" },
        {
          case: "neighbour exec, beside 8 busy processes",
          p50_ms: round(neighbour.loaded),
          p95_ms: "",
          runs: "",
        },
      ],
    };
  },
});
