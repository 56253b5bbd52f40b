import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, totalmem, type as osType, release } from "node:os";
import { join } from "node:path";
import type { BenchMode, BenchOutcome } from "./benchmark.ts";
import { round } from "./stats.ts";

export const defaultResultsDir = join(import.meta.dirname, "..", "results");

/** `RESULT NAME ratio=… goal=… key=value…`: the last line a benchmark prints. */
export function resultLine(name: string, outcome: BenchOutcome): string {
  const figures = Object.entries(outcome.figures).map(
    ([key, value]) => `${key}=${formatValue(value)}`,
  );
  return [
    "RESULT",
    name,
    `ratio=${formatValue(outcome.ratio)}`,
    `goal=${outcome.goal}`,
    ...figures,
  ].join(" ");
}

export function formatTable(rows: readonly Readonly<Record<string, number | string>>[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => formatValue(row[column] ?? "")));
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((line) => (line[i] ?? "").length)),
  );
  const line = (values: readonly string[]) =>
    values.map((value, i) => value.padEnd(widths[i] ?? 0)).join("  ");
  return [line(columns), line(widths.map((width) => "-".repeat(width))), ...cells.map(line)].join(
    "\n",
  );
}

/**
 * Writes `bench/results/FILE.json` (FILE is NAME, or NAME.OPTION-VALUE when an option is not its
 * default, so a run on another store keeps its own file): the figures, the options they were
 * measured with, the machine they came from, and the commit.
 */
export async function writeResult(options: {
  name: string;
  file?: string;
  mode: BenchMode;
  /** The benchmark's options as chosen; none are written when it declares none. */
  options?: Readonly<Record<string, string>>;
  outcome: BenchOutcome;
  resultsDir: string;
}): Promise<string> {
  await mkdir(options.resultsDir, { recursive: true });
  const path = join(options.resultsDir, `${options.file ?? options.name}.json`);
  const chosen = options.options ?? {};
  const document = {
    name: options.name,
    mode: options.mode,
    ...(Object.keys(chosen).length > 0 ? { options: chosen } : {}),
    at: new Date().toISOString(),
    commit: gitCommit(),
    ratio: options.outcome.ratio,
    goal: options.outcome.goal,
    goalMet: options.outcome.goalMet,
    figures: options.outcome.figures,
    table: options.outcome.table,
    machine: {
      os: `${osType()} ${release()}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryGiB: round(totalmem() / 2 ** 30, 1),
      node: process.version,
    },
  };
  await writeFile(path, `${JSON.stringify(document, null, 2)}\n`);
  return path;
}

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return "unknown";
  }
}

function formatValue(value: number | string): string {
  return typeof value === "number" ? String(round(value)) : value;
}
