import type { TreeFacts } from "@berth/sandbox/testing";
import type { BenchMode, BenchOutcome } from "../harness/benchmark.ts";
import { round } from "../harness/stats.ts";
import type { BerthRun } from "./berthCycle.ts";
import type { S3TarRun } from "./s3Baseline.ts";
import { GOAL_RATIO, mbps, of, stepMedians, type StepLabels } from "./summary.ts";

/** The control plane's RSS growth while it captures and restores the RSS tree (issue 36). */
export const GOAL_RSS_GROWTH_MIB = 64;
const MB = 1_000_000;

export interface S3Measured {
  readonly mode: BenchMode;
  readonly tree: TreeFacts;
  readonly berth: readonly BerthRun[];
  readonly baseline: readonly S3TarRun[];
  /** One capture + restore of the larger tree, for the bench process's RSS growth. */
  readonly rss: { readonly tree: TreeFacts; readonly run: BerthRun };
}

type Row = Readonly<Record<string, number | string>>;

const labels: StepLabels = {
  capture: {
    firstByteMs: "  capture: connect, boxd estimate walk, first byte",
    streamMs: "  capture: tar → gzip -1 → lib-storage upload (8 MiB parts), complete",
    publishMs: "  capture: copy to content key, publish CAS, link, prune",
  },
  restore: {
    checkMs: "  restore: begin + pre-check (GetObject read 1, sha256)",
    createMs: "  restore: box create (boxd start)",
    readyMs: "  restore: record, connect, exec ready",
    hydrateMs: "  restore: hydrate (GetObject read 2 → boxd gunzip + extract)",
    verifyMs: "  restore: mark verifying, manifest re-hash, commit",
  },
};

/**
 * Medians over the measured runs; ratio = Berth capture+restore through the S3 store over
 * `tar -czf` | Upload + GetObject | `tar -xzf` to and from the same server. The goal also
 * bounds the bench process's RSS growth over one capture + restore of the RSS tree.
 */
export function summarizeS3(m: S3Measured): BenchOutcome {
  const bytes = m.tree.bytes;
  const captureMs = of(m.berth, (r) => r.captureMs);
  const restoreMs = of(m.berth, (r) => r.restoreMs);
  const uploadMs = of(m.baseline, (r) => r.uploadMs);
  const downloadMs = of(m.baseline, (r) => r.downloadMs);
  const berthMs = of(m.berth, (r) => r.captureMs + r.restoreMs);
  const baselineMs = of(m.baseline, (r) => r.uploadMs + r.downloadMs);
  const ratio = berthMs / baselineMs;
  const rssRun = m.rss.run;
  const goalMet = ratio <= GOAL_RATIO && rssRun.benchRssCycleMb < GOAL_RSS_GROWTH_MIB;
  const steps = stepMedians(m.berth, labels);
  const rated = (name: string, ms: number, runs: number): Row => ({
    case: name,
    median_ms: round(ms, 0),
    MB_per_s: round(mbps(bytes, ms), 1),
    runs,
  });
  const rssTreeMb = round(m.rss.tree.bytes / MB, 0);
  const rssRow = (name: string, mib: number): Row => ({
    case: `bench RSS growth, ${String(rssTreeMb)} MB: ${name}`,
    MiB: round(mib, 1),
    runs: 1,
  });
  const table = [
    rated("berth capture (archiver.capture → S3)", captureMs, m.berth.length),
    rated("berth restore (spawner.establish ← S3)", restoreMs, m.berth.length),
    rated("berth capture + restore", berthMs, m.berth.length),
    rated("tar -czf | lib-storage Upload", uploadMs, m.baseline.length),
    rated("GetObject | tar -xzf", downloadMs, m.baseline.length),
    rated("baseline upload + download", baselineMs, m.baseline.length),
    ...steps.map((step) => ({
      case: step.label,
      median_ms: round(step.ms, 0),
      runs: m.berth.length,
    })),
    rssRow("capture", rssRun.benchRssCaptureMb),
    rssRow("restore", rssRun.benchRssRestoreMb),
    rssRow("capture start → restore end", rssRun.benchRssCycleMb),
  ];
  return {
    ratio,
    goal: `ratio<=${String(GOAL_RATIO)},rss_growth_MiB<${String(GOAL_RSS_GROWTH_MIB)}`,
    goalMet,
    figures: {
      store: "s3",
      capture_MBps: mbps(bytes, captureMs),
      restore_MBps: mbps(bytes, restoreMs),
      baseline_upload_MBps: mbps(bytes, uploadMs),
      baseline_download_MBps: mbps(bytes, downloadMs),
      capture_ms: captureMs,
      restore_ms: restoreMs,
      baseline_upload_ms: uploadMs,
      baseline_download_ms: downloadMs,
      ...Object.fromEntries(steps.map((step) => [step.figure, step.ms])),
      tree_MB: bytes / MB,
      tree_files: m.tree.files,
      blob_MB: of(m.berth, (r) => r.blobBytes) / MB,
      tgz_MB: of(m.baseline, (r) => r.tgzBytes) / MB,
      rss_tree_MB: m.rss.tree.bytes / MB,
      rss_growth_MiB: rssRun.benchRssCycleMb,
      rss_capture_MiB: rssRun.benchRssCaptureMb,
      rss_restore_MiB: rssRun.benchRssRestoreMb,
      boxd_hwm_capture_MiB: Math.max(...m.berth.map((r) => r.boxdCaptureMb)),
      boxd_hwm_restore_MiB: Math.max(...m.berth.map((r) => r.boxdRestoreMb)),
      runs: m.berth.length,
      isolation: m.berth[0]?.isolation ?? "unknown",
    },
    table,
  };
}
