import { chromium } from "@playwright/test";
import { chromiumLaunchOptions } from "@berth/e2e/chromium";
import { createTestDatabase } from "@berth/testkit";
import { mkdtemp } from "node:fs/promises";
import { startStack } from "./dashboard/stack.ts";
import { seedDashboard } from "./dashboard/seed.ts";
import { timePage } from "./dashboard/measure.ts";
const database = await createTestDatabase();
const stack = await startStack({
  databaseUrl: database.url,
  dataDir: await mkdtemp("/tmp/dbg-"),
  demoPassword: "bench-dashboard-password",
});
const seeded = await seedDashboard(database.prisma, { sessions: 1000, machines: 200 });
const browser = await chromium.launch(chromiumLaunchOptions);
const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
await ctx.request.post(`${stack.url}/api/auth/sign-in/email`, {
  data: { email: "admin@berth.local", password: "bench-dashboard-password" },
  headers: { origin: stack.url },
});
const url = `${stack.url}/?workspace=${seeded.workspaceId}`;
for (let i = 0; i < 5; i++) {
  const page = await ctx.newPage();
  page.on("console", (m) => console.log("console", m.text()));
  const t = await timePage(page, {
    url,
    probe: { rowSelector: 'a[href^="/sessions/"]', rows: 1000, filter: seeded.needle },
  });
  console.log(JSON.stringify(t));
  await page.close();
}
await browser.close();
await stack.stop();
await database[Symbol.asyncDispose]();
