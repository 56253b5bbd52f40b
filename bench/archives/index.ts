import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeWorkspaceTree, type TreeShape } from "@berth/sandbox/testing";
import { createTestDatabase } from "@berth/testkit";
import { defineBenchmark, type BenchMode } from "../harness/benchmark.ts";
import { round } from "../harness/stats.ts";
import { alternatingRounds } from "../harness/rounds.ts";
import { berthCycle, type BerthRun } from "./berthCycle.ts";
import { awaitQuietDisk } from "./quietDisk.ts";
import { measureOnS3, type S3Plan } from "./s3Run.ts";
import { summarize } from "./summary.ts";
import { tarCycle } from "./tarBaseline.ts";
import { ArchiveWorld } from "./world.ts";

const MB = 1_000_000;

interface Plan {
  readonly tree: TreeShape;
  readonly warmups: number;
  readonly runs: number;
  /** The restore-time anchor (Daytona: 3.2 s archived → serving for 140 MB), full mode only. */
  readonly anchor?: TreeShape & { readonly runs: number };
}

/** The 140 MB / 14,000-entry workspace the issues' restore and S3 goals are set on. */
const ANCHOR: TreeShape = { bytes: 140 * MB, entries: 14_000, seed: 140 };

const plans: Record<BenchMode, Plan> = {
  // Short mode proves the benchmark runs end to end (CI runs it); sizes are full mode's.
  short: { tree: { bytes: 4 * MB, entries: 400, seed: 20 }, warmups: 0, runs: 1 },
  full: {
    tree: { bytes: 200 * MB, entries: 20_000, seed: 200 },
    warmups: 1,
    runs: 3,
    anchor: { ...ANCHOR, runs: 3 },
  },
};

/** `--store s3`: the anchor both ways, and 300 MB for the memory goal (issue 36). */
const s3Plans: Record<BenchMode, S3Plan> = {
  short: {
    tree: { bytes: 4 * MB, entries: 400, seed: 20 },
    warmups: 0,
    runs: 1,
    rssTree: { bytes: 6 * MB, entries: 600, seed: 30 },
  },
  full: {
    tree: ANCHOR,
    warmups: 1,
    runs: 3,
    rssTree: { bytes: 300 * MB, entries: 30_000, seed: 300 },
  },
};

const seconds = (ms: number) => `${String(round(ms / 1000, 2))} s`;

export default defineBenchmark({
  name: "archives",
  description:
    "capture + restore of a generated workspace tree through the archiver and the spawner, against tar -czf + tar -xzf of the same tree",
  // filesystem: the store in a local folder, against tar alone; s3: a local S3 server, against
  // tar with lib-storage's Upload and a GetObject (s3Run.ts).
  options: { store: ["filesystem", "s3"] },
  async run(context) {
    if (context.options.store === "s3") return measureOnS3(context, s3Plans[context.mode]);
    const plan = plans[context.mode];
    if (context.mode === "full") {
      await awaitQuietDisk(context.progress);
    }
    await using database = await createTestDatabase();
    await using world = await ArchiveWorld.create(database.prisma);
    const scratch = join(world.root, "tar");
    await mkdir(scratch);

    context.progress(
      `writing a ${String(plan.tree.bytes / MB)} MB, ${String(plan.tree.entries)}-entry tree`,
    );
    const tree = join(world.root, "tree");
    const facts = await writeWorkspaceTree(tree, plan.tree);

    const { berth, baseline: tar } = await alternatingRounds(plan, {
      berth: async (label) => {
        const result = await berthCycle(world, tree);
        context.progress(
          `${label} berth: capture ${seconds(result.captureMs)}, restore ${seconds(result.restoreMs)}`,
        );
        return result;
      },
      baseline: async (label) => {
        const result = await tarCycle(tree, scratch);
        context.progress(
          `${label} tar: -czf ${seconds(result.czfMs)}, -xzf ${seconds(result.xzfMs)}`,
        );
        return result;
      },
    });

    const anchor: BerthRun[] = [];
    if (plan.anchor !== undefined) {
      context.progress(
        `restore anchor: a ${String(plan.anchor.bytes / MB)} MB, ${String(plan.anchor.entries)}-entry tree`,
      );
      const anchorTree = join(world.root, "tree-anchor");
      await writeWorkspaceTree(anchorTree, plan.anchor);
      for (let i = 0; i < plan.anchor.runs; i += 1) {
        const result = await berthCycle(world, anchorTree);
        context.progress(
          `anchor ${String(i + 1)}/${String(plan.anchor.runs)}: restore ${seconds(result.restoreMs)}`,
        );
        anchor.push(result);
      }
    }

    return summarize({
      mode: context.mode,
      tree: facts,
      berth,
      tar,
      anchor,
    });
  },
});
