// Starts Berth for the browser tests: a fresh, migrated database on the machine's Postgres
// (from @berth/testkit), then the real start entry on it. Dropped again when Playwright stops us.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createTestDatabase } from "@berth/testkit";
import { demoAdmin } from "./demoAdmin.ts";

const database = await createTestDatabase();
const launcher = spawn(
  process.execPath,
  ["--import", "tsx", join(import.meta.dirname, "..", "apps", "launcher", "src", "main.ts")],
  {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      // No demo box: the browser tests need none, and a box would outlive them.
      BERTH_DEMO_BOX: "off",
      // Known to the specs, which sign in as the demo admin.
      BERTH_DEMO_PASSWORD: demoAdmin.password,
      // One server serves the whole run from one address; the default 5 a minute would make
      // the specs' sign-ins depend on their count and order.
      BERTH_SIGNIN_ATTEMPTS_PER_MINUTE: "50",
    },
    stdio: "inherit",
  },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => launcher.kill(signal));
}
const [code] = (await once(launcher, "exit")) as [number | null];
await database[Symbol.asyncDispose]();
process.exit(code ?? 1);
