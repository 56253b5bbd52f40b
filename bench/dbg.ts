import { chromium } from "@playwright/test";
import { chromiumLaunchOptions } from "@berth/e2e/chromium";
import { createTestDatabase } from "@berth/testkit";
import { mkdtemp, writeFile } from "node:fs/promises";
import { startStack } from "./dashboard/stack.ts";
import { seedDashboard } from "./dashboard/seed.ts";
import { snapshotAsStaticHtml } from "./dashboard/baseline.ts";
const database = await createTestDatabase();
const stack = await startStack({
  databaseUrl: database.url,
  dataDir: await mkdtemp("/tmp/dbg-"),
  demoPassword: "bench-dashboard-password",
});
const seeded = await seedDashboard(database.prisma, { sessions: 1000, machines: 200 });
const browser = await chromium.launch(chromiumLaunchOptions);
const ctx = await browser.newContext();
await ctx.request.post(`${stack.url}/api/auth/sign-in/email`, {
  data: { email: "admin@berth.local", password: "bench-dashboard-password" },
  headers: { origin: stack.url },
});
const page = await ctx.newPage();
const url = `${stack.url}/?workspace=${seeded.workspaceId}`;
await page.goto(url);
await page.waitForSelector('a[href^="/sessions/"] >> nth=999');
await writeFile("/tmp/overview.html", await snapshotAsStaticHtml(page, true));
const res = await ctx.request.get(url);
await writeFile("/tmp/overview-berth.html", await res.text());

const client = await ctx.newCDPSession(page);
await client.send("Profiler.enable");
await client.send("Profiler.start");
const t0 = Date.now();
await page.goto(url, { waitUntil: "load" });
console.log("load", Date.now() - t0);
const { profile } = await client.send("Profiler.stop");
await writeFile("/tmp/overview.cpuprofile", JSON.stringify(profile));
const perf = await page.evaluate(() =>
  JSON.stringify(performance.getEntriesByType("navigation")[0]),
);
console.log(perf);
const res2 = await page.evaluate(() =>
  performance
    .getEntriesByType("resource")
    .map((e) => [
      e.name.slice(-50),
      Math.round(e.startTime),
      Math.round((e as PerformanceResourceTiming).responseEnd),
      (e as PerformanceResourceTiming).transferSize,
    ]),
);
console.log(res2);
await browser.close();
await stack.stop();
await database[Symbol.asyncDispose]();
