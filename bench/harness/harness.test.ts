import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/** A RESULT line's key=value figures, after its name, ratio and goal. */
function figuresOf(line: string): Record<string, string> {
  return Object.fromEntries(
    line
      .split(" ")
      .slice(3)
      .map((pair) => pair.split("=")),
  ) as Record<string, string>;
}

const cli = join(import.meta.dirname, "cli.ts");
const fixtures = join(import.meta.dirname, "fixtures");
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function bench(args: readonly string[]) {
  const results = await mkdtemp(join(tmpdir(), "berth-bench-"));
  dirs.push(results);
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", cli, ...args, `--results=${results}`],
    {
      encoding: "utf8",
      timeout: 110_000,
    },
  );
  return { ...run, results, lastLine: run.stdout.trim().split("\n").at(-1) ?? "" };
}

describe("pnpm bench", () => {
  it("reports a missed goal, ends with the RESULT line, writes the JSON, and exits 0", async () => {
    const run = await bench(["missed", `--root=${fixtures}`]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("GOAL MISSED: ratio<=1.5");
    expect(run.lastLine).toBe("RESULT missed ratio=2.5 goal=ratio<=1.5 ops=1234.568");
    const written = JSON.parse(await readFile(join(run.results, "missed.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(written).toMatchObject({
      name: "missed",
      ratio: 2.5,
      goalMet: false,
      machine: { cpus: expect.any(Number) as unknown },
    });
    expect(written.commit).toMatch(/^([0-9a-f]{40}|unknown)$/);
  });

  it("exits non-zero and prints no RESULT when a benchmark fails to measure", async () => {
    const run = await bench(["broken", `--root=${fixtures}`]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("failed to measure");
    expect(run.stdout).not.toContain("RESULT");
  });

  it("refuses an unknown benchmark name, listing the known ones", async () => {
    const run = await bench(["nope", `--root=${fixtures}`]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("known: broken, missed, options");
  });

  it("passes a benchmark its option, written --store s3 or --store=s3, and the default when none is given", async () => {
    for (const args of [
      ["options", "--store", "s3"],
      ["--store=s3", "options"],
    ]) {
      const run = await bench([...args, `--root=${fixtures}`]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.lastLine).toBe("RESULT options ratio=1 goal=ratio<=1.5 store=s3");
      // A run on another store keeps its own result file, which names the options it had.
      const written = JSON.parse(
        await readFile(join(run.results, "options.store-s3.json"), "utf8"),
      ) as Record<string, unknown>;
      expect(written).toMatchObject({ name: "options", options: { store: "s3" } });
    }
    const byDefault = await bench(["options", `--root=${fixtures}`]);
    expect(byDefault.status, byDefault.stderr).toBe(0);
    expect(byDefault.lastLine).toBe("RESULT options ratio=1 goal=ratio<=1.5 store=filesystem");
    await readFile(join(byDefault.results, "options.json"), "utf8");
  });

  it("refuses a value or an option a benchmark does not take, before running anything", async () => {
    const value = await bench(["options", "--store", "nfs", `--root=${fixtures}`]);
    expect(value.status).toBe(2);
    expect(value.stderr).toContain("store");
    expect(value.stdout).not.toContain("RESULT");

    const option = await bench(["missed", "options", "--store=s3", `--root=${fixtures}`]);
    expect(option.status).toBe(2);
    expect(option.stderr).toContain("missed");
    expect(option.stdout).not.toContain("RESULT");
  });

  it("runs the lease benchmark in its short mode: one spawner per herd, and a parseable RESULT", async () => {
    const run = await bench(["lease", "--short"]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.lastLine).toMatch(
      /^RESULT lease ratio=\d+(\.\d+)? goal=ratio<=1\.5,attach_ops>=1000 /,
    );
    const figures: Record<string, string> = Object.fromEntries(
      run.lastLine
        .split(" ")
        .slice(2)
        .map((pair): [string, string] => {
          const [key = "", value = ""] = pair.split("=");
          return [key, value];
        }),
    );
    expect(Number(figures.attach_ops)).toBeGreaterThan(0);
    expect(Number(figures.baseline_ops)).toBeGreaterThan(0);
    expect(figures.herd_spawners).toBe("1");
  });

  it("runs the boxes benchmark in its short mode: real boxes through the lease, and a parseable RESULT", async () => {
    const run = await bench(["boxes", "--short"]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.lastLine).toMatch(
      /^RESULT boxes ratio=\d+(\.\d+)? goal=ratio<=1\.3,p50_ms<300 p50_ms=\d/,
    );
    expect(run.lastLine).toMatch(
      / runs=3 isolation=(bubblewrap|none) network=(none|egress|host) neighbour_idle_p50_ms=\d[\d.]* neighbour_loaded_p50_ms=\d[\d.]*$/,
    );
  });

  it("runs the archives benchmark in its short mode: a capture and an exact restore against tar, and a parseable RESULT", async () => {
    const run = await bench(["archives", "--short"]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.lastLine).toMatch(/^RESULT archives ratio=\d+(\.\d+)? goal=ratio<=1\.3 /);
    expect(run.lastLine).toMatch(/ capture_MBps=\d+(\.\d+)? restore_MBps=\d+(\.\d+)? /);
  });

  it("runs the archives benchmark on the S3 store in its short mode: against lib-storage and GetObject, the pre-check and RSS growth reported", async () => {
    const run = await bench(["archives", "--store", "s3", "--short"]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.lastLine).toMatch(
      /^RESULT archives ratio=\d+(\.\d+)? goal=ratio<=1\.3,rss_growth_MiB<64 store=s3 /,
    );
    expect(run.lastLine).toMatch(/ baseline_upload_ms=\d[\d.]* baseline_download_ms=\d[\d.]* /);
    expect(run.lastLine).toMatch(/ restore_check_ms=\d[\d.]* /);
    expect(run.lastLine).toMatch(/ rss_tree_MB=\d[\d.]* rss_growth_MiB=\d[\d.]* /);
  });

  it("runs the services benchmark in its short mode: calls through client, API and boxd, and a parseable RESULT", async () => {
    const run = await bench(["services", "--short"]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.lastLine).toMatch(
      /^RESULT services ratio=\d+(\.\d+)? goal=ratio<=1\.5,herd50_ms<=cold_call_ms\+250 read_p50_ms=\d/,
    );
    // Issue 33: a herd of 50 cold calls against one cold call, both measured in the run.
    expect(run.lastLine).toMatch(/ herd50_ms=\d+(\.\d+)? cold_call_ms=\d+(\.\d+)? herd_rounds=1 /);
    expect(run.lastLine).toMatch(
      / read_db_round_trips=\d+(\.\d+)? exec_db_round_trips=\d+(\.\d+)? runs=20$/,
    );
    const trips = /read_db_round_trips=(\S+) exec_db_round_trips=(\S+)/.exec(run.lastLine);
    // A fenced call costs the database at least its acquire and its release; exec also admits.
    expect(Number(trips?.[1])).toBeGreaterThanOrEqual(2);
    expect(Number(trips?.[2])).toBeGreaterThan(Number(trips?.[1]));
  });

  it("runs the kubernetes benchmark in its short mode: cold and resumed boxes on kube-sim against the raw client, request counts from the log", async () => {
    const run = await bench(["kubernetes", "--short"]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.lastLine).toMatch(
      /^RESULT kubernetes ratio=\d+(\.\d+)? goal=ratio<=1\.2,resume_ratio<=1\.2,claim_p50_ms<=1000 cold_p50_ms=\d/,
    );
    const figures = figuresOf(run.lastLine);
    expect(Number(figures.resume_ratio)).toBeGreaterThan(0);
    // Deterministic: the template read, the Sandbox and its Secret; the Sandbox and pod read
    // before the mode PATCH. The raw client POSTs the two objects; it PATCHes.
    expect(figures.allocate_requests).toBe("3");
    expect(figures.baseline_allocate_requests).toBe("2");
    expect(figures.resume_requests).toBe("3");
    expect(figures.baseline_resume_requests).toBe("1");
    // A claim from the warm pool: the pool read, the claim's POST and read, the member's read
    // and its identity PATCH.
    expect(Number(figures.claim_p50_ms)).toBeGreaterThan(0);
    expect(figures.claim_requests).toBe("5");
  });

  it("runs the dashboard benchmark in its short mode: every row shown, the filter answering, tRPC calls bounded", async () => {
    const run = await bench(["dashboard", "--short"]);

    expect(run.status, run.stderr).toBe(0);
    expect(run.lastLine).toMatch(
      /^RESULT dashboard ratio=\d+(\.\d+)? goal=ratio<=2,overview_ms<1500,session_ms<1500,trpc_calls<=8 /,
    );
    const figures = figuresOf(run.lastLine);
    // The seeded 100 sessions (plus the demo workspace's own) and 20 machines with the group box.
    expect(Number(figures.sessions)).toBeGreaterThanOrEqual(100);
    expect(figures.machine_rows).toBe("21");
    expect(Number(figures.overview_ms)).toBeGreaterThan(Number(figures.overview_rows_ms));
    // The pages' data arrives with them: a handful of tRPC calls whatever the number of rows.
    expect(Number(figures.overview_trpc_calls)).toBeLessThanOrEqual(8);
    expect(Number(figures.session_trpc_calls)).toBeLessThanOrEqual(8);
  });
});
