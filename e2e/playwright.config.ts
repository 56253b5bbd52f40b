import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./chromium.ts";

const port = Number(process.env.BERTH_E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "specs",
  outputDir: "test-results",
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  reporter: [["list"], ["json", { outputFile: "../reports/playwright/e2e.json" }]],
  use: {
    baseURL,
    browserName: "chromium",
    headless: true,
    launchOptions: chromiumLaunchOptions,
  },
  webServer: {
    // Berth's start entry on a fresh database of the machine's Postgres (see serve.ts).
    command: "node --import tsx serve.ts",
    url: `${baseURL}/api/trpc/status.get`,
    env: { PORT: String(port) },
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
  },
});
