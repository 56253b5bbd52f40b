#!/usr/bin/env -S node --import tsx
// Prints each suite's totals and wall time, then the closing `N passed, N failed` line.
// Exits 1 when anything failed or nothing ran. Usage: summarize.ts <reports-dir>
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { totalsOfReport, totalsOfStages, type StageRecord, type SuiteTotals } from "./reports.ts";

async function readReports(dir: string): Promise<SuiteTotals[]> {
  const suites: SuiteTotals[] = [];
  for (const runner of ["vitest", "playwright"]) {
    const folder = join(dir, runner);
    const files = (await readdir(folder).catch(() => []))
      .filter((file) => file.endsWith(".json"))
      .sort();
    for (const file of files) {
      const report: unknown = JSON.parse(await readFile(join(folder, file), "utf8"));
      suites.push(totalsOfReport(`${runner}:${basename(file, ".json")}`, report));
    }
  }
  return suites;
}

async function readStages(dir: string): Promise<StageRecord[]> {
  const text = await readFile(join(dir, "stages.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as StageRecord);
}

function row(cells: readonly (string | number)[]): string {
  const widths = [34, 7, 7, 8, 9];
  return cells.map((cell, i) => String(cell).padEnd(widths[i] ?? 8)).join("");
}

const dir = process.argv[2] ?? "reports";
const stages = await readStages(dir);
const suites = await readReports(dir);
const all = [...suites, ...totalsOfStages(stages, suites)];
const out: string[] = ["", row(["suite", "passed", "failed", "skipped", "seconds"])];
for (const suite of all) {
  out.push(row([suite.name, suite.passed, suite.failed, suite.skipped, suite.seconds.toFixed(1)]));
}
if (stages.length > 0) {
  out.push(
    "",
    `stage wall times: ${stages.map((s) => `${s.name} ${s.seconds.toFixed(1)}s`).join(", ")}`,
  );
}
const failures = all.flatMap((suite) =>
  suite.failures.map((failure) => `  ✗ ${suite.name}: ${failure}`),
);
if (failures.length > 0) out.push("", "failed:", ...failures);
const passed = all.reduce((sum, suite) => sum + suite.passed, 0);
const failed = all.reduce((sum, suite) => sum + suite.failed, 0);
const skipped = all.reduce((sum, suite) => sum + suite.skipped, 0);
if (passed + failed === 0) out.push("", "no test ran: every suite is missing its report");
out.push("", `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.stdout.write(`${out.join("\n")}\n`);
process.exitCode = failed > 0 || passed + failed === 0 ? 1 : 0;
