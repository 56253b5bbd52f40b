import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { useTestDatabase } from "@berth/testkit";
import { describe, expect, it } from "vitest";

const main = join(import.meta.dirname, "..", "src", "main.ts");
const database = useTestDatabase();

/** Starts the real worker entry with exactly `env` (plus PATH), collecting its output. */
function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", main], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, output, exited };
}

async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("the worker process", () => {
  it("lists every missing and malformed variable in one message, then exits 1", async () => {
    const worker = startWorker({ LOG_LEVEL: "loud", BERTH_LAUNCHER_PID: "minus-one" });
    const [code] = await worker.exited;

    expect(code).toBe(1);
    expect(worker.output.stderr).toContain("invalid environment (3 problems)");
    expect(worker.output.stderr).toMatch(/DATABASE_URL: is required/);
    expect(worker.output.stderr).toMatch(/LOG_LEVEL: /);
    expect(worker.output.stderr).toMatch(/BERTH_LAUNCHER_PID: /);
  });

  it("refuses a DATABASE_URL that is not a postgresql:// URL", async () => {
    const worker = startWorker({ DATABASE_URL: "mysql://root@127.0.0.1/x" });
    const [code] = await worker.exited;
    expect(code).toBe(1);
    expect(worker.output.stderr).toMatch(/DATABASE_URL: must be a postgresql:\/\/ URL/);
  });

  it("connects, logs a structured line, and stops cleanly on SIGTERM", async () => {
    const worker = startWorker({ DATABASE_URL: database.current.url });
    await waitFor(() => worker.output.stdout.includes("worker started"), "the start line");

    worker.child.kill("SIGTERM");
    const [code, signal] = await worker.exited;

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const lines = jsonLines(worker.output.stdout);
    expect(lines.map((line) => line.msg)).toEqual(["worker started", "worker stopping"]);
    expect(lines[0]).toMatchObject({ reaperPeriodMs: 30_000 });
    expect(lines[0]).toMatchObject({ level: 30, service: "worker" });
    expect(String(lines[0]?.database)).toMatch(/^PostgreSQL/);
    expect(lines[1]).toMatchObject({ reason: "SIGTERM" });
  });

  it("exits 1 with a fatal line when its database cannot be reached", async () => {
    const url = new URL(database.current.url);
    url.port = "1";
    const worker = startWorker({ DATABASE_URL: url.toString() });
    const [code] = await worker.exited;
    expect(code).toBe(1);
    expect(jsonLines(worker.output.stdout).map((line) => line.msg)).toEqual(["worker failed"]);
  });

  it("stops by itself once its launcher is gone", async () => {
    const goneLauncher = spawnSync(process.execPath, ["-e", ""]).pid;
    const worker = startWorker({
      DATABASE_URL: database.current.url,
      BERTH_LAUNCHER_PID: String(goneLauncher),
    });
    const [code] = await worker.exited;

    expect(code).toBe(0);
    expect(jsonLines(worker.output.stdout).at(-1)).toMatchObject({
      msg: "worker stopping",
      reason: "launcher gone",
    });
  });

  it("sweeps leases with its reaper: a warming lease past its deadline goes cold at epoch+1", async () => {
    const db = database.current.prisma;
    const workspace = await db.workspace.create({
      data: { slug: `w-${crypto.randomUUID()}`, name: "W" },
    });
    const lease = await db.sandboxLease.create({
      data: {
        workspaceId: workspace.id,
        sandboxGroupId: crypto.randomUUID(),
        backend: "local",
        liveness: "warming",
        expiresAt: new Date(Date.now() - 60_000),
      },
    });
    const worker = startWorker({
      DATABASE_URL: database.current.url,
      BERTH_REAPER_PERIOD_MS: "1000",
    });
    try {
      await waitFor(() => worker.output.stdout.includes('"msg":"reaper sweep"'), "a reaper sweep");
      expect(await db.sandboxLease.findUniqueOrThrow({ where: { id: lease.id } })).toMatchObject({
        liveness: "cold",
        epoch: 1,
      });
      expect(
        jsonLines(worker.output.stdout).find((line) => line.msg === "reaper sweep"),
      ).toMatchObject({ expiredWarming: 1 });
    } finally {
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
  });

  it("refuses a reaper period not shorter than the viewer TTL, in the same one message", async () => {
    const worker = startWorker({
      DATABASE_URL: database.current.url,
      BERTH_REAPER_PERIOD_MS: "120000",
    });
    const [code] = await worker.exited;
    expect(code).toBe(1);
    expect(worker.output.stderr).toContain(
      "BERTH_REAPER_PERIOD_MS: must be shorter than BERTH_VIEWER_TTL_MS (90000 ms)",
    );
  });
});
