// Starts Berth for the browser tests: a fresh, migrated database on the machine's Postgres
// (from @berth/testkit) and a fresh data folder, then the real start entry on them. Dropped
// again when Playwright stops us — with the boxes the specs woke, which by design outlive the
// server that started them.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@berth/testkit";
import { demoAdmin } from "./demoAdmin.ts";

const database = await createTestDatabase();
const dataDir = await mkdtemp(join(tmpdir(), "berth-e2e-"));
const launcher = spawn(
  process.execPath,
  ["--import", "tsx", join(import.meta.dirname, "..", "apps", "launcher", "src", "main.ts")],
  {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      BERTH_DATA_DIR: dataDir,
      // No demo box: the browser tests need none, and a box would outlive them — but the
      // kube-sim spec's (berthOnKubeSim.ts), which kube-sim's stop ends.
      BERTH_DEMO_BOX: process.env.BERTH_E2E_DEMO_BOX === "on" ? "on" : "off",
      // Known to the specs, which sign in as the demo admin.
      BERTH_DEMO_PASSWORD: demoAdmin.password,
      // One server serves the whole run from one address; the default 5 a minute would make
      // the specs' sign-ins depend on their count and order.
      BERTH_SIGNIN_ATTEMPTS_PER_MINUTE: "50",
      // Which must stay above what one address may try in an hour (61 × 50).
      BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR: "5000",
    },
    stdio: "inherit",
  },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => launcher.kill(signal));
}
const [code] = (await once(launcher, "exit")) as [number | null];
await database[Symbol.asyncDispose]();
await stopBoxesUnder(dataDir);
await rm(dataDir, { recursive: true, force: true });
process.exit(code ?? 1);

/**
 * Ends every box process serving a workspace in `folder`: an unisolated boxd (its BOXD_ROOT is
 * there) and what runs in its box, or a bubblewrap box's sandbox (its arguments bind a folder
 * there; inside, boxd's root is /workspace) — killing the namespace's init ends all inside it.
 */
async function stopBoxesUnder(folder: string): Promise<void> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const serves =
      environ.split("\0").some((line) => line.startsWith(`BOXD_ROOT=${folder}`)) ||
      isBubblewrapOver(cmdline.split("\0"), folder);
    if (!serves) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** A bubblewrap sandbox (argv[0] is bwrap, whatever its path) binding a folder in `folder`. */
function isBubblewrapOver(argv: readonly string[], folder: string): boolean {
  const program = argv[0] ?? "";
  return (
    (program === "bwrap" || program.endsWith("/bwrap")) &&
    argv.some((arg) => arg.startsWith(`${folder}/`))
  );
}
