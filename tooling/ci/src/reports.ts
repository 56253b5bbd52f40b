// Reads the test reports of one run and sums them. Two formats: Vitest's `json` reporter
// (Jest-shaped) and, from the browser suite, Playwright's `json` reporter.

/** One counted unit of a run: a test suite from its report, or a whole-run check (lint, typecheck). */
export interface SuiteTotals {
  readonly name: string;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly seconds: number;
  readonly failures: readonly string[];
}

/** What scripts/test.sh records for each stage it runs. */
export interface StageRecord {
  readonly name: string;
  /** check: counts once; tests: counted by its reports; setup: counts only when it fails. */
  readonly kind: "check" | "tests" | "setup";
  readonly exitCode: number;
  readonly seconds: number;
}

interface VitestReport {
  readonly startTime?: number;
  readonly testResults: readonly {
    readonly name: string;
    readonly startTime?: number;
    readonly endTime?: number;
    readonly status?: string;
    readonly message?: string;
    readonly assertionResults: readonly { readonly fullName: string; readonly status: string }[];
  }[];
}

interface PlaywrightReport {
  readonly stats: {
    readonly expected: number;
    readonly unexpected: number;
    readonly flaky: number;
    readonly skipped: number;
    readonly duration: number;
  };
  readonly errors?: readonly { readonly message?: string }[];
}

/** Totals of one report file, whichever runner wrote it. */
export function totalsOfReport(name: string, report: unknown): SuiteTotals {
  if (isPlaywrightReport(report)) return playwrightTotals(name, report);
  if (isVitestReport(report)) return vitestTotals(name, report);
  throw new Error(`${name}: not a Vitest or Playwright JSON report`);
}

function vitestTotals(name: string, report: VitestReport): SuiteTotals {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: string[] = [];
  let start = Number.POSITIVE_INFINITY;
  let end = 0;
  for (const file of report.testResults) {
    start = Math.min(start, file.startTime ?? start);
    end = Math.max(end, file.endTime ?? end);
    // A file that failed to load has no assertions but still failed.
    if (file.status === "failed" && file.assertionResults.length === 0) {
      failed += 1;
      failures.push(`${file.name}: ${file.message ?? "failed to run"}`);
    }
    for (const test of file.assertionResults) {
      if (test.status === "passed") passed += 1;
      else if (test.status === "failed") {
        failed += 1;
        failures.push(test.fullName);
      } else skipped += 1;
    }
  }
  const seconds = end > start ? (end - start) / 1000 : 0;
  return { name, passed, failed, skipped, seconds, failures };
}

function playwrightTotals(name: string, report: PlaywrightReport): SuiteTotals {
  const { stats } = report;
  const errors = (report.errors ?? []).map((error) => error.message ?? "error outside a test");
  return {
    name,
    passed: stats.expected + stats.flaky,
    failed: stats.unexpected + errors.length,
    skipped: stats.skipped,
    seconds: stats.duration / 1000,
    failures: errors,
  };
}

/** Lint and typecheck count as one check each; a test stage that failed without a failing test counts once. */
export function totalsOfStages(
  stages: readonly StageRecord[],
  suites: readonly SuiteTotals[],
): SuiteTotals[] {
  const totals: SuiteTotals[] = [];
  for (const stage of stages) {
    const ok = stage.exitCode === 0;
    switch (stage.kind) {
      case "check":
        totals.push(
          ok
            ? {
                name: stage.name,
                passed: 1,
                failed: 0,
                skipped: 0,
                seconds: stage.seconds,
                failures: [],
              }
            : failedStage(stage, `${stage.name} exited ${stage.exitCode}`),
        );
        break;
      case "setup":
        if (!ok) totals.push(failedStage(stage, `${stage.name} exited ${stage.exitCode}`));
        break;
      case "tests":
        if (!ok && suites.every((suite) => suite.failed === 0)) {
          totals.push(
            failedStage(
              stage,
              `${stage.name} exited ${stage.exitCode} with no failing test in any report (a crash?)`,
            ),
          );
        }
        break;
    }
  }
  return totals;
}

function failedStage(stage: StageRecord, failure: string): SuiteTotals {
  return {
    name: stage.name,
    passed: 0,
    failed: 1,
    skipped: 0,
    seconds: stage.seconds,
    failures: [failure],
  };
}

function isVitestReport(value: unknown): value is VitestReport {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as VitestReport).testResults)
  );
}

function isPlaywrightReport(value: unknown): value is PlaywrightReport {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as PlaywrightReport).stats === "object"
  );
}
