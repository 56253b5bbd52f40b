// Issue 32, through the real worker process: where bubblewrap works, an idle lease whose box runs
// unisolated is asked to rotate and drained by the very next reaper sweep; an isolated one keeps
// its idle grace.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeBubblewrap } from "@berth/sandbox";
import { useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const main = join(import.meta.dirname, "..", "src", "main.ts");
const database = useTestDatabase();
const ci = process.env.CI === "true" || process.env.CI === "1";
// Under CI bubblewrap is required, so this runs (and fails if it is missing).
const bubblewrap = ci || (await probeBubblewrap("bwrap")).ok;

let dataDir = "";
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "berth-worker-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function waitFor(predicate: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the worker, once isolation works", () => {
  it.skipIf(!bubblewrap)(
    "asks an idle unisolated box's lease to rotate and drains it at once; an isolated one keeps its grace",
    async () => {
      const db = database.current.prisma;
      const workspace = await db.workspace.create({
        data: { slug: `w-${crypto.randomUUID()}`, name: "W" },
      });
      // Idle boxes (no holders, within their idle grace) whose boxes are gone from this machine:
      // a drain with nothing admitted stops them (already gone) and goes cold.
      const idle = (name: string, isolation: "none" | "bubblewrap") =>
        db.sandboxLease.create({
          data: {
            workspaceId: workspace.id,
            sandboxGroupId: crypto.randomUUID(),
            backend: "local",
            liveness: "draining",
            epoch: 1,
            instanceId: `box-${name}-${randomBytes(4).toString("hex")}`,
            boxIsolation: isolation,
            boxNetwork: isolation === "none" ? "host" : "none",
            expiresAt: new Date(Date.now() + 15 * 60_000),
          },
        });
      const bare = await idle("bare", "none");
      const wrapped = await idle("wrapped", "bubblewrap");

      const child = spawn(process.execPath, ["--import", "tsx", main], {
        env: {
          PATH: process.env.PATH ?? "",
          DATABASE_URL: database.current.url,
          BERTH_SECRET: randomBytes(24).toString("hex"),
          BERTH_DATA_DIR: dataDir,
          BERTH_REAPER_PERIOD_MS: "1000",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = once(child, "exit");
      try {
        await waitFor(
          async () =>
            (await db.sandboxLease.findUniqueOrThrow({ where: { id: bare.id } })).liveness ===
            "cold",
          "the unisolated box's lease to go cold",
        );
        expect(stdout).toContain("isolation works: unisolated boxes asked to rotate");
        const events = await db.leaseEvent.findMany({
          where: { leaseId: bare.id },
          orderBy: { id: "asc" },
          select: { transition: true, actor: true, reason: true },
        });
        expect(events).toEqual([
          { transition: "rotate", actor: "reaper", reason: "box_unisolated" },
          { transition: "drain_cold", actor: "reaper", reason: null },
        ]);
        expect(await db.sandboxLease.findUniqueOrThrow({ where: { id: bare.id } })).toMatchObject({
          instanceId: null,
          boxIsolation: null,
          rotationRequestedAt: null,
          epoch: 2,
        });
        expect(
          await db.sandboxLease.findUniqueOrThrow({ where: { id: wrapped.id } }),
        ).toMatchObject({ liveness: "draining", rotationRequestedAt: null, epoch: 1 });
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
    },
  );
});
