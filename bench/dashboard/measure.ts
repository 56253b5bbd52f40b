import type { Page } from "@playwright/test";

/** What one page load cost, in ms from navigation start (the page's own performance clock). */
export interface PageTiming {
  /** The last expected row is laid out. */
  readonly rowsMs: number;
  /** The filter took a keystroke and the table answered it (lists with a filter only). */
  readonly keystrokeMs: number | null;
  /** Requests to /api/trpc the page made until then. */
  readonly trpcCalls: number;
  /** Where the time went, from the page's navigation and resource timings. */
  readonly phases: PagePhases;
}

export interface PagePhases {
  /** The document's first byte arrived (server time + network). */
  readonly firstByteMs: number;
  /** The document was parsed and its deferred scripts ran (hydration starts about here). */
  readonly domContentLoadedMs: number;
  /** The first tRPC request left, and the last tRPC answer before the rows arrived. */
  readonly trpcStartMs: number | null;
  readonly trpcEndMs: number | null;
}

export interface PageProbe {
  /** Rows the page must show: a CSS selector for one element per row, and how many. */
  readonly rowSelector: string;
  readonly rows: number;
  /** Type this into the page's search box and wait until exactly one row is shown. */
  readonly filter?: string;
}

const TIMEOUT_MS = 60_000;

/**
 * Loads `url` in `page` and times it from the page's navigation start: to the last row laid
 * out, then (with `filter`) to the search box accepting the text and the table showing the one
 * match (typed by the page itself on every frame until it answers: `typeUntilAnswered`).
 */
export async function timePage(
  page: Page,
  load: {
    url: string;
    probe: PageProbe;
    /** Runs once every row is shown, before the filter is typed into. */
    onRows?: () => Promise<void>;
  },
): Promise<PageTiming> {
  const { url, probe, onRows } = load;
  let trpcCalls = 0;
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/api/trpc/")) trpcCalls += 1;
  });
  await page.goto(url, { waitUntil: "commit" });
  const rowsMs = await page
    .waitForFunction(
      ({ selector, rows }) => {
        const found = document.querySelectorAll(selector);
        const last = found[rows - 1];
        return found.length >= rows && last !== undefined && last.getBoundingClientRect().height > 0
          ? performance.now()
          : false;
      },
      { selector: probe.rowSelector, rows: probe.rows },
      { polling: "raf", timeout: TIMEOUT_MS },
    )
    .then(
      (handle) => handle.jsonValue() as Promise<number>,
      async (error: unknown) => {
        const found = await page.locator(probe.rowSelector).count();
        throw new Error(
          `${page.url()}: ${String(found)} of ${String(probe.rows)} rows after ${String(TIMEOUT_MS)} ms`,
          { cause: error },
        );
      },
    );
  const phases = await page.evaluate((): PagePhases => {
    const [navigation] = performance.getEntriesByType(
      "navigation",
    ) as PerformanceNavigationTiming[];
    const trpc = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter(
      (entry) => new URL(entry.name).pathname.startsWith("/api/trpc/") && entry.responseEnd > 0,
    );
    return {
      firstByteMs: navigation?.responseStart ?? 0,
      domContentLoadedMs: navigation?.domContentLoadedEventEnd ?? 0,
      trpcStartMs: trpc.length === 0 ? null : Math.min(...trpc.map((entry) => entry.startTime)),
      trpcEndMs: trpc.length === 0 ? null : Math.max(...trpc.map((entry) => entry.responseEnd)),
    };
  });
  await onRows?.();
  if (probe.filter === undefined) return { rowsMs, keystrokeMs: null, trpcCalls, phases };

  const keystrokeMs = await page
    .evaluate<number>(typeUntilAnswered(probe.rowSelector, probe.filter))
    .catch((error: unknown) => {
      throw new Error(`${url}: ${String(error)}`, { cause: error });
    });
  return { rowsMs, keystrokeMs, trpcCalls, phases };
}

/**
 * The page-side loop of the keystroke measure, as source text (run as written: a compiler's
 * helpers would not exist in the page). A key typed before the page is interactive is lost, so
 * the text is typed again on every animation frame — emptied first, so a page that kept the
 * value without acting on it sees a change — through the input prototype's value setter, as a
 * keyboard would, until exactly one row shows. It answers that frame's time: no round trip to
 * the test per try.
 */
function typeUntilAnswered(rowSelector: string, text: string): string {
  return `new Promise((resolve, reject) => {
    const selector = ${JSON.stringify(rowSelector)};
    const text = ${JSON.stringify(text)};
    const input = document.querySelector('input[type="search"]');
    if (input === null) return reject(new Error("the page has no search box"));
    const type = (value) => {
      Reflect.set(HTMLInputElement.prototype, "value", value, input);
      input.dispatchEvent(new Event("input", { bubbles: true }));
    };
    const deadline = performance.now() + ${String(TIMEOUT_MS)};
    const frame = () => {
      // Shown or not is asked of each row's own box: asking it of an element inside a row whose
      // content the browser skips (off screen) would make it lay that row out.
      const shown = [...document.querySelectorAll(selector)].filter(
        (found) => (found.closest("tr") ?? found).getClientRects().length > 0,
      );
      if (shown.length === 1) return resolve(performance.now());
      if (performance.now() > deadline) return reject(new Error("the filter never answered " + text));
      type("");
      type(text);
      requestAnimationFrame(frame);
    };
    frame();
  })`;
}
