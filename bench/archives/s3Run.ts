import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type TreeShape, writeWorkspaceTree } from "@berth/sandbox/testing";
import { createTestDatabase } from "@berth/testkit";
import type { BenchContext, BenchOutcome } from "../harness/benchmark.ts";
import { round } from "../harness/stats.ts";
import { alternatingRounds } from "../harness/rounds.ts";
import { berthCycle } from "./berthCycle.ts";
import { awaitQuietDisk } from "./quietDisk.ts";
import { s3TarCycle } from "./s3Baseline.ts";
import { summarizeS3 } from "./s3Summary.ts";
import { ArchiveWorld } from "./world.ts";

const MB = 1_000_000;

export interface S3Plan {
  /** The tree both sides move: the 140 MB / 14,000-entry anchor in full mode. */
  readonly tree: TreeShape;
  readonly warmups: number;
  readonly runs: number;
  /** The tree of the one capture + restore whose bench-process RSS growth is the memory goal. */
  readonly rssTree: TreeShape;
}

const seconds = (ms: number) => `${String(round(ms / 1000, 2))} s`;

/**
 * `--store s3`: Berth's capture + restore through the S3 store (a local S3 server in a child
 * process) against `tar -czf` | lib-storage Upload and GetObject | `tar -xzf` with the same
 * server, in alternating rounds; then one capture + restore of the RSS tree for the memory goal.
 */
export async function measureOnS3(
  context: Pick<BenchContext, "mode" | "progress">,
  plan: S3Plan,
): Promise<BenchOutcome> {
  if (context.mode === "full") await awaitQuietDisk(context.progress);
  await using database = await createTestDatabase();
  await using world = await ArchiveWorld.create(database.prisma, "s3");
  const s3 = world.s3;
  if (s3 === undefined) throw new Error("the S3 world has no S3 server");
  const scratch = join(world.root, "tar");
  await mkdir(scratch);

  context.progress(
    `writing a ${String(plan.tree.bytes / MB)} MB, ${String(plan.tree.entries)}-entry tree`,
  );
  const tree = join(world.root, "tree");
  const facts = await writeWorkspaceTree(tree, plan.tree);

  const { berth, baseline } = await alternatingRounds(plan, {
    berth: async (label) => {
      const result = await berthCycle(world, tree);
      context.progress(
        `${label} berth: capture ${seconds(result.captureMs)}, restore ${seconds(result.restoreMs)} ` +
          `(pre-check ${seconds(result.restore.checkMs)}, hydrate ${seconds(result.restore.hydrateMs)})`,
      );
      return result;
    },
    baseline: async (label) => {
      const result = await s3TarCycle(tree, scratch, s3.bucket);
      context.progress(
        `${label} baseline: -czf | Upload ${seconds(result.uploadMs)}, GetObject | -xzf ${seconds(result.downloadMs)}`,
      );
      return result;
    },
  });

  context.progress(
    `memory: capture + restore of a ${String(plan.rssTree.bytes / MB)} MB, ${String(plan.rssTree.entries)}-entry tree`,
  );
  const rssTree = join(world.root, "tree-rss");
  const rssFacts = await writeWorkspaceTree(rssTree, plan.rssTree);
  const rssRun = await berthCycle(world, rssTree);
  context.progress(
    `memory: bench RSS grew ${String(round(rssRun.benchRssCycleMb, 1))} MiB ` +
      `(capture ${seconds(rssRun.captureMs)}, restore ${seconds(rssRun.restoreMs)})`,
  );

  return summarizeS3({
    mode: context.mode,
    tree: facts,
    berth,
    baseline,
    rss: { tree: rssFacts, run: rssRun },
  });
}
