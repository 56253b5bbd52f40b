import type { TreeFacts } from "@berth/sandbox/testing";
import type { BenchMode, BenchOutcome } from "../harness/benchmark.ts";
import { median, round } from "../harness/stats.ts";
import type { BerthRun, CaptureSplit, RestoreSplit } from "./berthCycle.ts";
import type { TarRun } from "./tarBaseline.ts";

export const GOAL_RATIO = 1.3;
export const GOAL_RESTORE140_MS = 1500;
const MB = 1_000_000;

export interface Measured {
  readonly mode: BenchMode;
  readonly tree: TreeFacts;
  readonly berth: readonly BerthRun[];
  readonly tar: readonly TarRun[];
  /** Full mode only: capture + restore rounds of the 140 MB / 14,000-entry tree. */
  readonly anchor: readonly BerthRun[];
}

type Figures = Record<string, number | string>;
type Row = Readonly<Record<string, number | string>>;

export const of = <T>(runs: readonly T[], pick: (run: T) => number) => median(runs.map(pick));
export const mbps = (bytes: number, ms: number) => bytes / MB / (ms / 1000);

/** A table label for each step of a capture and of a restore (they differ by store). */
export interface StepLabels {
  readonly capture: Readonly<Record<keyof CaptureSplit, string>>;
  readonly restore: Readonly<Record<keyof RestoreSplit, string>>;
}

const captureSteps: StepLabels["capture"] = {
  firstByteMs: "  capture: connect, boxd estimate walk, first byte",
  streamMs: "  capture: tar → gzip -1 → blob, fsync, manifest check",
  publishMs: "  capture: publish CAS, link, prune",
};
const restoreSteps: StepLabels["restore"] = {
  checkMs: "  restore: begin + blob sha256 check",
  createMs: "  restore: box create (boxd start)",
  readyMs: "  restore: record, connect, exec ready",
  hydrateMs: "  restore: hydrate (stored gzip → boxd gunzip + extract)",
  verifyMs: "  restore: mark verifying, manifest re-hash, commit",
};

/** Medians over the measured runs; ratio = Berth capture+restore over tar -czf + tar -xzf. */
export function summarize(m: Measured): BenchOutcome {
  const bytes = m.tree.bytes;
  const berthMs = of(m.berth, (r) => r.captureMs + r.restoreMs);
  const tarMs = of(m.tar, (r) => r.czfMs + r.xzfMs);
  const ratio = berthMs / tarMs;
  const restore140 = m.anchor.length > 0 ? of(m.anchor, (r) => r.restoreMs) : undefined;
  const goalMet =
    ratio <= GOAL_RATIO && (restore140 === undefined || restore140 <= GOAL_RESTORE140_MS);
  const goal =
    m.mode === "full"
      ? `ratio<=${String(GOAL_RATIO)},restore140_ms<=${String(GOAL_RESTORE140_MS)}`
      : `ratio<=${String(GOAL_RATIO)}`;
  const steps = stepMedians(m.berth);
  // Where the 140 MB restore's time goes, step by step, as for the full-size one.
  const anchorSteps = m.anchor.length > 0 ? restoreStepMedians(m.anchor, "restore140") : [];
  const rated = (name: string, ms: number, runs: number): Row => ({
    case: name,
    median_ms: round(ms, 0),
    MB_per_s: round(mbps(bytes, ms), 1),
    runs,
  });
  const unrated = (name: string, ms: number, runs: number): Row => ({
    ...rated(name, ms, runs),
    MB_per_s: "",
  });
  const table = [
    rated(
      "berth capture (archiver.capture)",
      of(m.berth, (r) => r.captureMs),
      m.berth.length,
    ),
    rated(
      "berth restore (spawner.establish)",
      of(m.berth, (r) => r.restoreMs),
      m.berth.length,
    ),
    rated("berth capture + restore", berthMs, m.berth.length),
    rated(
      "tar -czf",
      of(m.tar, (r) => r.czfMs),
      m.tar.length,
    ),
    rated(
      "tar -xzf",
      of(m.tar, (r) => r.xzfMs),
      m.tar.length,
    ),
    rated("tar -czf + tar -xzf", tarMs, m.tar.length),
    ...(restore140 === undefined
      ? []
      : [unrated("berth restore, 140 MB / 14,000 entries", restore140, m.anchor.length)]),
    ...steps.map((step) => unrated(step.label, step.ms, m.berth.length)),
    ...anchorSteps.map((step) => unrated(step.label, step.ms, m.anchor.length)),
  ];
  return {
    ratio,
    goal,
    goalMet,
    figures: {
      ...rates(m),
      // Short mode has no 140 MB restore: its own restore is named for its tree's size.
      ...(restore140 === undefined
        ? { restore20_ms: of(m.berth, (r) => r.restoreMs) }
        : { restore140_ms: restore140 }),
      ...Object.fromEntries([...steps, ...anchorSteps].map((step) => [step.figure, step.ms])),
      ...sizesAndMemory(m),
    },
    table,
  };
}

function rates(m: Measured): Figures {
  const bytes = m.tree.bytes;
  const captureMs = of(m.berth, (r) => r.captureMs);
  const restoreMs = of(m.berth, (r) => r.restoreMs);
  const czfMs = of(m.tar, (r) => r.czfMs);
  const xzfMs = of(m.tar, (r) => r.xzfMs);
  return {
    capture_MBps: mbps(bytes, captureMs),
    restore_MBps: mbps(bytes, restoreMs),
    tar_czf_MBps: mbps(bytes, czfMs),
    tar_xzf_MBps: mbps(bytes, xzfMs),
    capture_ms: captureMs,
    restore_ms: restoreMs,
    tar_czf_ms: czfMs,
    tar_xzf_ms: xzfMs,
  };
}

function sizesAndMemory(m: Measured): Figures {
  const peak = (pick: (r: BerthRun) => number) => Math.max(...m.berth.map(pick));
  return {
    tree_MB: m.tree.bytes / MB,
    tree_files: m.tree.files,
    blob_MB: of(m.berth, (r) => r.blobBytes) / MB,
    tgz_MB: of(m.tar, (r) => r.tgzBytes) / MB,
    bench_rss_capture_MiB: peak((r) => r.benchRssCaptureMb),
    bench_rss_restore_MiB: peak((r) => r.benchRssRestoreMb),
    boxd_hwm_capture_MiB: peak((r) => r.boxdCaptureMb),
    boxd_hwm_restore_MiB: peak((r) => r.boxdRestoreMb),
    runs: m.berth.length,
    isolation: m.berth[0]?.isolation ?? "unknown",
  };
}

/** The median of each capture and restore step, with its table label and figure name. */
export function stepMedians(
  runs: readonly BerthRun[],
  labels: StepLabels = { capture: captureSteps, restore: restoreSteps },
) {
  const capture = (Object.keys(labels.capture) as (keyof CaptureSplit)[]).map((key) => ({
    label: labels.capture[key],
    figure: figureName("capture", key),
    ms: of(runs, (r) => r.capture[key]),
  }));
  return [...capture, ...restoreStepMedians(runs, "restore", labels.restore)];
}

/** `side` "restore140" labels the 140 MB restore's steps (`restore140_hydrate_ms`, …). */
function restoreStepMedians(
  runs: readonly BerthRun[],
  side: "restore" | "restore140",
  labels: StepLabels["restore"] = restoreSteps,
) {
  return (Object.keys(labels) as (keyof RestoreSplit)[]).map((key) => ({
    label: side === "restore" ? labels[key] : labels[key].replace("restore:", "restore 140 MB:"),
    figure: figureName(side, key),
    ms: of(runs, (r) => r.restore[key]),
  }));
}

/** ("restore", "checkMs") → `restore_check_ms`; ("capture", "firstByteMs") → `capture_first_byte_ms`. */
function figureName(side: string, key: string): string {
  const words = key.replace(/Ms$/, "").replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return `${side}_${words}_ms`;
}
