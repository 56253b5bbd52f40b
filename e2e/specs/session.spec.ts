import { expect, test } from "@playwright/test";
import { expectPageShown } from "../pageChecks.ts";
import { call, signIn } from "../signedIn.ts";

// In order: the overview test counts the box the first test woke.
test.describe.configure({ mode: "serial" });

// A session's page follows its box live: the machines table and the lease timeline change as
// calls made elsewhere (here: straight to the API, as an agent would) move the lease.

test("the machines table and the timeline follow the box live, archiveComplete and isolation included", async ({
  page,
}, testInfo) => {
  await signIn(page);
  const sessions = page.getByRole("region", { name: "Sessions" });
  await sessions.getByLabel("Title").fill("Live session");
  await sessions.getByRole("button", { name: "New session" }).click();
  await sessions.getByRole("link", { name: "Live session" }).click();

  await expect(page.getByRole("heading", { name: "Live session", level: 1 })).toBeVisible();
  const url = new URL(page.url());
  const sessionId = url.pathname.split("/").at(-1) ?? "";
  const scope = { workspaceId: url.searchParams.get("workspace") ?? "", sessionId };
  const machines = page.getByRole("region", { name: "Machines" });
  const state = machines.getByTestId("machine-state");
  const generations = machines.getByTestId("machine-generations");
  const archive = machines.getByTestId("archive-complete");
  const isolation = machines.getByTestId("machine-isolation");
  await expect(state).toHaveText("cold");
  // No box, so nothing is confined yet.
  await expect(isolation).toHaveText("—");
  await expect(generations).toHaveText("0 / —");
  await expect(archive).toHaveText("archive behind");
  await expect(page.getByTestId("live-status")).toHaveText("live");
  // The badge's meaning, one click away (a native popover: Escape closes it).
  const help = page.getByText(/a verified archive holds every write admitted/);
  await expect(help).toBeHidden();
  await machines.getByRole("button", { name: "What is archiveComplete?" }).click();
  await expect(help).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();
  await expectPageShown(page, testInfo, { name: "session-cold", heading: "Live session" });

  // A read through the API wakes the box: the page shows it warm without a reload.
  await call(page, { path: "fs.list", input: { ...scope, path: "" }, kind: "query" });
  await expect(state).toHaveText("warm");
  // What the box was given, as its lease recorded it: bubblewrap (no warning badge), never the
  // host's network.
  await expect(isolation).toContainText("bubblewrap");
  await expect(isolation).toContainText(/network (none|egress)/);
  await expect(isolation.locator(".badge-warning")).toHaveCount(0);
  await call(page, { path: "archives.capture", input: scope, kind: "mutation" });
  await expect(archive).toHaveText("archiveComplete");
  await expect(generations).toHaveText("0 / 0");
  await call(page, {
    path: "fs.write",
    input: { ...scope, path: "notes.txt", content: "hello" },
    kind: "mutation",
  });
  await expect(generations).toHaveText("1 / 0");
  await expect(archive).toHaveText("archive behind");
  await call(page, { path: "archives.capture", input: scope, kind: "mutation" });
  await expect(generations).toHaveText("1 / 1");
  await expect(archive).toHaveText("archiveComplete");

  // Every transition is on the timeline with its epoch, in the chart and in the table.
  const timeline = page.getByRole("region", { name: "Lease timeline" });
  const rows = timeline.getByTestId("timeline-row");
  await expect(rows.filter({ hasText: "commit_warm" })).toContainText("warming → warm");
  await expect(rows.filter({ hasText: "commit_warm" }).getByRole("cell").nth(3)).toHaveText(
    "0 → 1",
  );
  await expect(rows.filter({ hasText: "publish_archive" })).toHaveCount(2);
  await expect(timeline.getByTestId("timeline-point")).toHaveCount(await rows.count());
  await expect(
    timeline.getByRole("img", { name: /Lease timeline: \d+ transitions/ }),
  ).toBeVisible();

  await expectPageShown(page, testInfo, { name: "session-live", heading: "Live session" });
});

test("the overview counts sessions by state and filters them, the filter kept in the URL", async ({
  page,
}, testInfo) => {
  await signIn(page);
  const sessions = page.getByRole("region", { name: "Sessions" });
  await sessions.getByLabel("Title").fill("Idle session");
  await sessions.getByRole("button", { name: "New session" }).click();
  await expect(sessions.getByRole("link", { name: "Idle session" })).toBeVisible();
  // The previous test's box is live (warm, or draining once its page's viewer left); other
  // specs' boxes may be too (the run shares one database).
  await expect(sessions.getByTestId("state-counts")).toContainText(/warm [1-9]|draining [1-9]/);
  const filter = page.getByRole("search", { name: "Filter sessions" });
  await filter.getByLabel("Search").fill("live");
  await expect(page).toHaveURL(/[?&]q=live/);
  await expect(sessions.getByRole("link", { name: "Live session" })).toBeVisible();
  await expect(sessions.getByRole("link", { name: "Idle session" })).toHaveCount(0);
  // The search is text: quotes and markup in it match nothing and inject nothing.
  await filter.getByLabel("Search").fill('live"]</style><b id="injected">x');
  await expect(sessions.getByText("No session matches the filter.")).toBeVisible();
  await expect(page.locator("#injected")).toHaveCount(0);
  await filter.getByLabel("Search").fill("");
  await expect(sessions.getByRole("link", { name: "Idle session" })).toBeVisible();
  await filter.getByLabel("State").selectOption("cold");
  await expect(page).toHaveURL(/[?&]state=cold/);
  await expect(sessions.getByRole("link", { name: "Idle session" })).toBeVisible();
  await expect(sessions.getByRole("link", { name: "Live session" })).toHaveCount(0);

  // The URL alone restores the view.
  await page.goto(page.url());
  await expect(filter.getByLabel("State")).toHaveValue("cold");
  await expect(sessions.getByRole("link", { name: "Idle session" })).toBeVisible();
  await expect(sessions.getByRole("link", { name: "Live session" })).toHaveCount(0);
  // The server renders the filtered rows, each once: the data hydration reads is not markup.
  const document = await (await page.request.get(page.url())).text();
  const shownRows = await sessions.locator("tr[data-session-row]").count();
  expect(shownRows).toBeGreaterThanOrEqual(1);
  expect(document.split("data-session-row=").length - 1).toBe(shownRows);
  await expectPageShown(page, testInfo, { name: "overview", heading: "Demo workspace" });
});

test("what is typed before the page's scripts load is kept, and filters once it hydrates", async ({
  page,
}) => {
  await signIn(page);
  // A hydration mismatch would be reported here (and React would redraw the page).
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  // Hold the page's scripts: until they load, the fields are plain HTML.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/_next/static/chunks/**/*.js", async (route) => {
    await held;
    await route.continue();
  });
  // Not to "domcontentloaded": that waits for the held scripts.
  await page.goto("/", { waitUntil: "commit" });
  const sessions = page.getByRole("region", { name: "Sessions" });
  const filter = page.getByRole("search", { name: "Filter sessions" });
  const search = filter.getByLabel("Search");
  const state = filter.getByLabel("State");
  await search.fill("idle");
  await state.selectOption("cold");
  // Nothing filters or writes the URL before React has hydrated the page.
  await expect(sessions.getByRole("link", { name: "Live session" })).toBeVisible();
  await expect(page).not.toHaveURL(/[?&](q|state)=/);

  release();
  await expect(page).toHaveURL(/[?&]q=idle/);
  await expect(page).toHaveURL(/[?&]state=cold/);
  await expect(search).toHaveValue("idle");
  await expect(state).toHaveValue("cold");
  await expect(sessions.getByRole("link", { name: "Live session" })).toHaveCount(0);
  await expect(sessions.getByRole("link", { name: "Idle session" })).toBeVisible();
  await search.fill("");
  await state.selectOption("");
  await expect(sessions.getByRole("link", { name: "Live session" })).toBeVisible();
  await expect(sessions.getByRole("link", { name: "Idle session" })).toBeVisible();
  expect(errors).toEqual([]);
});
