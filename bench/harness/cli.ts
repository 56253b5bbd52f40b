// `pnpm bench [NAME] [--short]`: runs bench/NAME (or every benchmark), prints its table and its
// RESULT line, writes bench/results/NAME.json. A missed goal still exits 0 and says so; a
// failure to measure exits 1. `--root=DIR` and `--results=DIR` point elsewhere (the harness's
// own tests use them).
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Benchmark, BenchMode } from "./benchmark.ts";
import { defaultResultsDir, formatTable, resultLine, writeResult } from "./report.ts";

const args = process.argv.slice(2);
const option = (name: string) =>
  args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const benchRoot = option("root") ?? join(import.meta.dirname, "..");
const resultsDir = option("results") ?? defaultResultsDir;

async function benchmarkNames(): Promise<string[]> {
  const entries = await readdir(benchRoot, { withFileTypes: true });
  const names: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || ["harness", "results", "node_modules"].includes(entry.name))
      continue;
    const files = await readdir(join(benchRoot, entry.name));
    if (files.includes("index.ts")) names.push(entry.name);
  }
  return names.sort();
}

async function runOne(name: string, mode: BenchMode): Promise<void> {
  const module = (await import(join(benchRoot, name, "index.ts"))) as { default: Benchmark };
  const benchmark = module.default;
  const progress = (message: string) => process.stderr.write(`[${name}] ${message}\n`);
  progress(`${benchmark.description} (${mode})`);
  const outcome = await benchmark.run({ mode, progress });
  const path = await writeResult({ name, mode, outcome, resultsDir });
  process.stdout.write(`\n${formatTable(outcome.table)}\n\n`);
  process.stdout.write(
    outcome.goalMet ? `goal met: ${outcome.goal}\n` : `GOAL MISSED: ${outcome.goal}\n`,
  );
  process.stdout.write(`wrote ${path}\n${resultLine(name, outcome)}\n`);
}

const mode: BenchMode = args.includes("--short") ? "short" : "full";
const requested = args.filter((arg) => !arg.startsWith("--"));
const known = await benchmarkNames();
const unknown = requested.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`Unknown benchmark ${unknown.join(", ")}; known: ${known.join(", ")}\n`);
  process.exit(2);
}
for (const name of requested.length > 0 ? requested : known) {
  try {
    await runOne(name, mode);
  } catch (error) {
    process.stderr.write(
      `[${name}] failed to measure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}
