// Starts Berth for the browser tests: a fresh, migrated database on the machine's Postgres
// (from @berth/testkit), then the real start entry on it. Dropped again when Playwright stops us.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createTestDatabase } from "@berth/testkit";

const database = await createTestDatabase();
const launcher = spawn(
  process.execPath,
  ["--import", "tsx", join(import.meta.dirname, "..", "apps", "launcher", "src", "main.ts")],
  {
    // No demo box: the browser tests need none, and a box would outlive them.
    env: { ...process.env, DATABASE_URL: database.url, BERTH_DEMO_BOX: "off" },
    stdio: "inherit",
  },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => launcher.kill(signal));
}
const [code] = (await once(launcher, "exit")) as [number | null];
await database[Symbol.asyncDispose]();
process.exit(code ?? 1);
