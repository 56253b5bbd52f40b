// `pnpm bench [NAME] [--short] [--OPTION=VALUE | --OPTION VALUE]…`: runs bench/NAME (or every
// benchmark), prints its table and its RESULT line, writes bench/results/NAME.json (NAME.OPTION-
// VALUE.json for a non-default option). A missed goal still exits 0 and says so; a failure to
// measure exits 1; a command line it cannot run (an unknown benchmark, option or value) exits 2
// before anything runs. `--root=DIR` and `--results=DIR` point elsewhere (the harness's own
// tests use them).
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Benchmark, BenchMode } from "./benchmark.ts";
import {
  BenchUsageError,
  chooseOptions,
  nonDefaultOptions,
  parseBenchArgs,
  type OptionChoices,
} from "./options.ts";
import { defaultResultsDir, formatTable, resultLine, writeResult } from "./report.ts";

type AnyBenchmark = Benchmark<OptionChoices>;

function usage(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** Runs `step`; a usage error it throws ends the run with exit code 2. */
function orUsage<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof BenchUsageError) usage(error.message);
    throw error;
  }
}

function failed(name: string, error: unknown): void {
  process.stderr.write(
    `[${name}] failed to measure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}

const args = orUsage(() => parseBenchArgs(process.argv.slice(2)));
const benchRoot = resolve(args.root ?? join(import.meta.dirname, ".."));
const resultsDir = args.results ?? defaultResultsDir;

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

async function load(name: string): Promise<AnyBenchmark> {
  const module = (await import(join(benchRoot, name, "index.ts"))) as { default: AnyBenchmark };
  return module.default;
}

async function runOne(
  name: string,
  benchmark: AnyBenchmark,
  options: Readonly<Record<string, string>>,
): Promise<void> {
  const progress = (message: string) => process.stderr.write(`[${name}] ${message}\n`);
  const variant = nonDefaultOptions(benchmark.options ?? {}, options);
  const given = variant.map(([key, value]) => `${key}=${value}`);
  progress(`${benchmark.description} (${[mode, ...given].join(", ")})`);
  const outcome = await benchmark.run({ mode, options, progress });
  const path = await writeResult({
    name,
    file: [name, ...variant.map(([key, value]) => `${key}-${value}`)].join("."),
    mode,
    options,
    outcome,
    resultsDir,
  });
  process.stdout.write(`\n${formatTable(outcome.table)}\n\n`);
  process.stdout.write(
    outcome.goalMet ? `goal met: ${outcome.goal}\n` : `GOAL MISSED: ${outcome.goal}\n`,
  );
  process.stdout.write(`wrote ${path}\n${resultLine(name, outcome)}\n`);
}

const mode: BenchMode = args.short ? "short" : "full";
const known = await benchmarkNames();
const unknown = args.names.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  usage(`Unknown benchmark ${unknown.join(", ")}; known: ${known.join(", ")}`);
}
// Every benchmark's options are checked before the first one runs: a typo must not cost a run.
const planned: { name: string; benchmark: AnyBenchmark; options: Record<string, string> }[] = [];
for (const name of args.names.length > 0 ? args.names : known) {
  let benchmark: AnyBenchmark;
  try {
    benchmark = await load(name);
  } catch (error) {
    failed(name, error);
    continue;
  }
  const options = orUsage(() => chooseOptions(name, benchmark.options ?? {}, args.options));
  planned.push({ name, benchmark, options });
}
for (const { name, benchmark, options } of planned) {
  try {
    await runOne(name, benchmark, options);
  } catch (error) {
    failed(name, error);
  }
}
