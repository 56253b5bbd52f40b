// Issue 33, item 6, through the real worker process: a capture killed mid-write after the worker
// started (so only a periodic sweep can find it) has its pending blob removed and its progress
// ended in 'failed', and the worker says so in a structured line.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const main = join(import.meta.dirname, "..", "src", "main.ts");
const database = useTestDatabase();

let dataDir = "";
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "berth-worker-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function run(script: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = once(child, "exit");
  return { child, exited, output: () => stdout };
}

async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const lines = (text: string) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("the worker's capture sweep", () => {
  it("removes a capture killed mid-write after it started, and moves its progress to failed", async () => {
    const db = database.current.prisma;
    const workspace = await db.workspace.create({
      data: { slug: `w-${crypto.randomUUID()}`, name: "W" },
    });
    const lease = await db.sandboxLease.create({
      data: {
        workspaceId: workspace.id,
        sandboxGroupId: crypto.randomUUID(),
        backend: "local",
        expiresAt: new Date(),
      },
    });
    const archiveDir = join(dataDir, "archives");
    const worker = run(main, [], {
      DATABASE_URL: database.current.url,
      BERTH_DATA_DIR: dataDir,
      BERTH_CAPTURE_SWEEP_MS: "1000",
      LOG_LEVEL: "debug",
    });
    try {
      await waitFor(() => worker.output().includes("worker started"), "the start line");
      const capture = run(join(import.meta.dirname, "deadCapture.ts"), [
        JSON.stringify({ url: database.current.url, archiveDir, leaseId: lease.id }),
      ]);
      await waitFor(() => capture.output().includes("writing"), "the capture to write");
      const frozen = await db.archiveProgress.findUniqueOrThrow({ where: { leaseId: lease.id } });
      // Alive, it is left alone however many sweeps pass.
      const sweeps = () => worker.output().split("abandoned capture sweep: none found").length - 1;
      const before = sweeps();
      await waitFor(() => sweeps() >= before + 2, "two more sweeps");
      expect((await readdir(join(archiveDir, ".incoming"))).length).toBe(2);
      expect(await db.archiveProgress.findUniqueOrThrow({ where: { leaseId: lease.id } })).toEqual(
        frozen,
      );
      capture.child.kill("SIGKILL");
      await capture.exited;

      await waitFor(
        () => worker.output().includes("abandoned captures swept"),
        "the sweep to find it",
      );

      expect(await readdir(join(archiveDir, ".incoming"))).toEqual([]);
      expect(
        await db.archiveProgress.findUniqueOrThrow({ where: { leaseId: lease.id } }),
      ).toMatchObject({
        phase: "failed",
        transferId: frozen.transferId,
        bytesDone: 45n * 1024n,
        bytesTotal: 150n * 1024n,
      });
      expect(
        lines(worker.output()).find((line) => line.msg === "abandoned captures swept"),
      ).toMatchObject({
        level: 30,
        removed: 1,
        deferred: 0,
        transfers: [{ leaseId: lease.id, transferId: frozen.transferId, outcome: "failed" }],
      });
      expect(lines(worker.output())[0]).toMatchObject({ captureSweepPeriodMs: 1000 });
    } finally {
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
  });
});
