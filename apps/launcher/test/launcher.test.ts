import { readMigrationFiles } from "@berth/db/migrate";
import { LocalBackend } from "@berth/sandbox";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  freePort,
  killGroup,
  startLauncher,
  untilRunning,
  type LauncherProcess,
} from "./launcherProcess.ts";

const started: LauncherProcess[] = [];
const dataDir = await mkdtemp(join(tmpdir(), "berth-start-"));

afterEach(async () => {
  await Promise.all(started.splice(0).map(killGroup));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function launch(): Promise<LauncherProcess> {
  const launcher = startLauncher({
    BERTH_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    BERTH_DEMO_BOX: "off",
  });
  started.push(launcher);
  return launcher;
}

interface Status {
  version: string;
  database: { engine: string; version: string; url: string };
  latestMigration: { name: string } | null;
}

async function readStatus(url: string): Promise<Status> {
  const response = await fetch(new URL("/api/trpc/status.get", url));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { data: { json: Status } } };
  return body.result.data.json;
}

describe("the start command on the embedded database", () => {
  it("serves the status procedure on PGlite, refuses a second start, and recovers a stale lock", async () => {
    const first = await launch();
    const url = await untilRunning(first);

    const status = await readStatus(url);
    expect(status.database.engine).toBe("PGlite");
    expect(status.database.version).toMatch(/PGlite/);
    expect(status.latestMigration?.name).toBe((await readMigrationFiles()).at(-1)?.name);
    expect(status.version).toBe("0.1.0");
    const lockHolder = Number((await readFile(join(dataDir, "berth.lock"), "utf8")).trim());
    expect(lockHolder).toBe(first.child.pid);

    const second = await launch();
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(
      `Berth is already running on ${dataDir} (pid ${String(first.child.pid)})`,
    );

    // SIGKILL leaves the lockfile behind, naming a dead pid.
    await killGroup(first);
    expect(Number((await readFile(join(dataDir, "berth.lock"), "utf8")).trim())).toBe(
      first.child.pid,
    );

    const third = await launch();
    const thirdUrl = await untilRunning(third);
    const after = await readStatus(thirdUrl);
    expect(after.database.engine).toBe("PGlite");
    expect(after.latestMigration?.name).toBe(status.latestMigration?.name);
  });

  it("stops cleanly on SIGTERM and releases the lock", async () => {
    const launcher = await launch();
    await untilRunning(launcher);
    launcher.child.kill("SIGTERM");
    expect(await launcher.exited).toBe(0);
    await expect(readFile(join(dataDir, "berth.lock"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("lists every malformed variable in one message", async () => {
    const launcher = startLauncher({
      PORT: "http",
      DATABASE_URL: "mysql://x",
      LOG_LEVEL: "chatty",
    });
    started.push(launcher);
    expect(await launcher.exited).toBe(1);
    expect(launcher.output()).toContain("invalid environment (3 problems)");
    for (const name of ["PORT", "DATABASE_URL", "LOG_LEVEL"])
      expect(launcher.output()).toContain(`- ${name}:`);
  });

  it("gives the demo session a real local box, which outlives the launcher", async () => {
    const boxesDir = await mkdtemp(join(tmpdir(), "berth-start-box-"));
    const launcher = startLauncher({ BERTH_DATA_DIR: boxesDir, PORT: String(await freePort()) });
    started.push(launcher);
    try {
      await untilRunning(launcher);
      const instanceId = /"instanceId":"([^"]+)","sessionId":"[^"]+","msg":"demo box warm"/.exec(
        launcher.output(),
      )?.[1];
      expect(instanceId, launcher.output()).toMatch(/^box-/);
      launcher.child.kill("SIGTERM");
      expect(await launcher.exited).toBe(0);

      const secret = (await readFile(join(boxesDir, "secret"), "utf8")).trim();
      const backend = new LocalBackend({ dataDir: boxesDir, secret, isolation: "auto" });
      const [box] = await backend.inventory();
      expect(box).toMatchObject({ instanceId, state: "running" });
      const client = await backend.connect(instanceId ?? "");
      expect(await client.exec({ argv: ["true"] })).toMatchObject({ exitCode: 0 });
      await backend.terminate(instanceId ?? "");
    } finally {
      await rm(boxesDir, { recursive: true, force: true });
    }
  });
});
