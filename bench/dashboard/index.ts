import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromiumLaunchOptions } from "@berth/e2e/chromium";
import { createTestDatabase } from "@berth/testkit";
import { chromium, type BrowserContext } from "@playwright/test";
import { defineBenchmark } from "../harness/benchmark.ts";
import { median, round } from "../harness/stats.ts";
import { serveStaticPages, snapshotAsStaticHtml } from "./baseline.ts";
import { timePage, type PageProbe, type PageTiming } from "./measure.ts";
import { seedDashboard } from "./seed.ts";
import { startStack } from "./stack.ts";

const GOAL_RATIO = 2;
const GOAL_MS = 1500;
/** A page's tRPC requests may not grow with its rows: this many at most, whatever the size. */
const GOAL_TRPC_CALLS = 8;
const DEMO_PASSWORD = "bench-dashboard-password";
const SESSION_ROWS = 'a[href^="/sessions/"]';
const MACHINE_ROWS = 'tr[data-testid^="machine-"]';

function medianOrNull(values: readonly (number | null)[]): number | "-" {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? "-" : round(median(present), 1);
}

async function signIn(context: BrowserContext, url: string): Promise<void> {
  const response = await context.request.post(`${url}/api/auth/sign-in/email`, {
    data: { email: "admin@berth.local", password: DEMO_PASSWORD },
    headers: { origin: url },
  });
  if (!response.ok())
    throw new Error(`sign-in failed: ${String(response.status())} ${await response.text()}`);
}

/** One load of `url` in a new tab; `keep` receives the page as static HTML once its rows show. */
async function timeIn(
  context: BrowserContext,
  { url, probe }: { url: string; probe: PageProbe },
  keep?: (html: string) => void,
): Promise<PageTiming> {
  const page = await context.newPage();
  try {
    return await timePage(page, {
      url,
      probe,
      ...(keep === undefined
        ? {}
        : {
            onRows: async () => keep(await snapshotAsStaticHtml(page, probe.filter !== undefined)),
          }),
    });
  } finally {
    await page.close();
  }
}

export default defineBenchmark({
  name: "dashboard",
  description:
    "the overview with 1,000 sessions (to the last row and the filter answering a keystroke) and a session's page with 200 machine rows, against the same pages as static HTML",
  async run(context) {
    const short = context.mode === "short";
    const sizes = short ? { sessions: 100, machines: 20 } : { sessions: 1000, machines: 200 };
    const rounds = short ? 2 : 9;
    await using database = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "berth-bench-dashboard-"));
    context.progress("starting Berth (the built dashboard, API and worker)");
    const stack = await startStack({
      databaseUrl: database.url,
      dataDir,
      demoPassword: DEMO_PASSWORD,
    });
    const statics = await serveStaticPages();
    const browser = await chromium.launch(chromiumLaunchOptions);
    try {
      context.progress(
        `seeding ${String(sizes.sessions)} sessions, ${String(sizes.machines)} machines`,
      );
      const seeded = await seedDashboard(database.prisma, sizes);
      const sessionCount = await database.prisma.session.count({
        where: { workspaceId: seeded.workspaceId },
      });
      const browserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await signIn(browserContext, stack.url);
      const pages = {
        overview: {
          url: `${stack.url}/?workspace=${seeded.workspaceId}`,
          probe: { rowSelector: SESSION_ROWS, rows: sessionCount, filter: seeded.needle },
        },
        session: {
          url: `${stack.url}/sessions/${seeded.sessionId}?workspace=${seeded.workspaceId}`,
          probe: { rowSelector: MACHINE_ROWS, rows: sizes.machines + 1 },
        },
      } satisfies Record<string, { url: string; probe: PageProbe }>;

      // Warm-up: the first load compiles and caches what every later one reuses; its DOM
      // becomes the baseline page.
      for (const [name, { url, probe }] of Object.entries(pages)) {
        context.progress(`warming up ${name}`);
        await timeIn(browserContext, { url, probe }, (html) => statics.set(name, html));
        await timeIn(browserContext, { url: statics.url(name), probe });
      }
      const samples = {
        overview: { berth: [] as PageTiming[], baseline: [] as PageTiming[] },
        session: { berth: [] as PageTiming[], baseline: [] as PageTiming[] },
      };
      for (let round = 1; round <= rounds; round += 1) {
        context.progress(`round ${String(round)}/${String(rounds)}`);
        for (const [name, { url, probe }] of Object.entries(pages)) {
          const bucket = samples[name as keyof typeof samples];
          bucket.berth.push(await timeIn(browserContext, { url, probe }));
          bucket.baseline.push(await timeIn(browserContext, { url: statics.url(name), probe }));
        }
      }

      const doneMs = (timing: PageTiming) => timing.keystrokeMs ?? timing.rowsMs;
      const figuresOf = (name: keyof typeof samples) => {
        const { berth, baseline } = samples[name];
        const ms = median(berth.map(doneMs));
        const baselineMs = median(baseline.map(doneMs));
        return {
          ms: round(ms, 1),
          rowsMs: round(median(berth.map((t) => t.rowsMs)), 1),
          baselineMs: round(baselineMs, 1),
          ratio: round(ms / baselineMs, 3),
          trpcCalls: Math.max(...berth.map((t) => t.trpcCalls)),
          firstByteMs: round(median(berth.map((t) => t.phases.firstByteMs)), 1),
          domContentLoadedMs: round(median(berth.map((t) => t.phases.domContentLoadedMs)), 1),
          trpcStartMs: medianOrNull(berth.map((t) => t.phases.trpcStartMs)),
          trpcEndMs: medianOrNull(berth.map((t) => t.phases.trpcEndMs)),
          baselineDomContentLoadedMs: round(
            median(baseline.map((t) => t.phases.domContentLoadedMs)),
            1,
          ),
        };
      };
      const overview = figuresOf("overview");
      const session = figuresOf("session");
      const ratio = Math.max(overview.ratio, session.ratio);
      return {
        ratio,
        goal: `ratio<=${String(GOAL_RATIO)},overview_ms<${String(GOAL_MS)},session_ms<${String(GOAL_MS)},trpc_calls<=${String(GOAL_TRPC_CALLS)}`,
        goalMet:
          ratio <= GOAL_RATIO &&
          overview.ms < GOAL_MS &&
          session.ms < GOAL_MS &&
          Math.max(overview.trpcCalls, session.trpcCalls) <= GOAL_TRPC_CALLS,
        figures: {
          sessions: sessionCount,
          machine_rows: sizes.machines + 1,
          rounds,
          overview_ms: overview.ms,
          overview_rows_ms: overview.rowsMs,
          overview_baseline_ms: overview.baselineMs,
          overview_ratio: overview.ratio,
          overview_trpc_calls: overview.trpcCalls,
          session_ms: session.ms,
          session_baseline_ms: session.baselineMs,
          session_ratio: session.ratio,
          session_trpc_calls: session.trpcCalls,
        },
        table: [
          { page: "overview", ...overview },
          { page: "session", ...session },
        ],
      };
    } finally {
      await browser.close();
      await statics.close();
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
});
