import { spawnSync } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const summarize = join(import.meta.dirname, "..", "src", "summarize.ts");
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Reports {
  vitest?: Record<string, unknown>;
  playwright?: Record<string, unknown>;
  stages?: readonly object[];
}

async function reportsDir(reports: Reports): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "berth-reports-"));
  dirs.push(dir);
  for (const runner of ["vitest", "playwright"] as const) {
    await mkdir(join(dir, runner));
    for (const [name, report] of Object.entries(reports[runner] ?? {})) {
      await writeFile(join(dir, runner, `${name}.json`), JSON.stringify(report));
    }
  }
  const stages = (reports.stages ?? []).map((stage) => JSON.stringify(stage)).join("\n");
  await writeFile(join(dir, "stages.jsonl"), stages);
  return dir;
}

function run(dir: string) {
  const result = spawnSync(process.execPath, ["--import", "tsx", summarize, dir], {
    encoding: "utf8",
  });
  const lastLine = result.stdout.trim().split("\n").at(-1);
  return { code: result.status, stdout: result.stdout, lastLine };
}

function vitestFile(name: string, statuses: readonly string[]) {
  return {
    name,
    status: statuses.includes("failed") ? "failed" : "passed",
    startTime: 1_000,
    endTime: 3_500,
    assertionResults: statuses.map((status, i) => ({ fullName: `${name} test ${i}`, status })),
  };
}

const passingStages = [
  { name: "lint", kind: "check", exitCode: 0, seconds: 3 },
  { name: "typecheck", kind: "check", exitCode: 0, seconds: 4 },
  { name: "unit", kind: "tests", exitCode: 0, seconds: 9 },
];

describe("summarize", () => {
  it("exits non-zero and counts 1 failed for a report with a failing test", async () => {
    const dir = await reportsDir({
      vitest: { db: { testResults: [vitestFile("a.test.ts", ["passed", "failed", "passed"])] } },
      stages: [{ name: "unit", kind: "tests", exitCode: 1, seconds: 9 }],
    });
    const { code, lastLine, stdout } = run(dir);
    expect(code).toBe(1);
    expect(lastLine).toBe("2 passed, 1 failed");
    expect(stdout).toContain("a.test.ts test 1");
  });

  it("sums Vitest and Playwright reports with lint and typecheck as one check each", async () => {
    const dir = await reportsDir({
      vitest: {
        db: { testResults: [vitestFile("a.test.ts", ["passed", "passed"])] },
        testkit: { testResults: [vitestFile("b.test.ts", ["passed", "skipped"])] },
      },
      playwright: {
        e2e: { stats: { expected: 3, unexpected: 0, flaky: 0, skipped: 0, duration: 4200 } },
      },
      stages: passingStages,
    });
    const { code, lastLine, stdout } = run(dir);
    expect(lastLine).toBe("8 passed, 0 failed, 1 skipped");
    expect(code).toBe(0);
    expect(stdout).toMatch(/vitest:db\s+2\s+0\s+0\s+2\.5/);
    expect(stdout).toContain("stage wall times: lint 3.0s, typecheck 4.0s, unit 9.0s");
  });

  it("counts a failed lint as one failure", async () => {
    const dir = await reportsDir({
      vitest: { db: { testResults: [vitestFile("a.test.ts", ["passed"])] } },
      stages: [{ name: "lint", kind: "check", exitCode: 1, seconds: 2 }],
    });
    expect(run(dir)).toMatchObject({ code: 1, lastLine: "1 passed, 1 failed" });
  });

  it("counts a test stage that crashed without a failing test in any report", async () => {
    const dir = await reportsDir({
      vitest: { db: { testResults: [vitestFile("a.test.ts", ["passed"])] } },
      stages: [{ name: "unit", kind: "tests", exitCode: 134, seconds: 2 }],
    });
    const { code, lastLine, stdout } = run(dir);
    expect(code).toBe(1);
    expect(lastLine).toBe("1 passed, 1 failed");
    expect(stdout).toContain("unit exited 134");
  });

  it("fails when no test ran at all", async () => {
    const dir = await reportsDir({ stages: [] });
    expect(run(dir)).toMatchObject({ code: 1, lastLine: "0 passed, 0 failed" });
  });
});
