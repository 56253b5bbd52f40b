import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectPageShown } from "../pageChecks.ts";
import { call, newSession, signIn } from "../signedIn.ts";

// A session's terminals in the browser: a shell in the box typed into through xterm, its
// output drawn again after a reload, and two at once, each keeping its own screen.

/** The shown terminal named `name` ("Shell 1"): its tab panel (hidden ones are not found). */
function shell(page: Page, name: string): Locator {
  return page.getByRole("region", { name: "Workspace" }).getByRole("tabpanel", { name });
}

/** Types a command line into a terminal's xterm, as a person does: click it, then the keys. */
async function typeLine(page: Page, terminal: Locator, line: string) {
  await terminal.locator(".xterm").click();
  await page.keyboard.type(line);
  await page.keyboard.press("Enter");
}

test("terminals: typed into, re-attached after a reload with their output, two side by side", async ({
  page,
}, testInfo) => {
  // The first terminal wakes the session's box.
  test.setTimeout(120_000);
  await signIn(page);
  const { workspaceId, sessionId } = await newSession(page, "Terminal session");
  await page.goto(`/sessions/${sessionId}?workspace=${workspaceId}`);
  await expect(page.getByRole("heading", { name: "Terminal session", level: 1 })).toBeVisible();

  const workspace = page.getByRole("region", { name: "Workspace" });
  const terminalTab = workspace.getByRole("tab", { name: "Terminal", exact: true });
  const shells = workspace.getByRole("tablist", { name: "Terminals" });
  await terminalTab.click();
  await expect(workspace.getByText("No terminal open.")).toBeVisible();
  await workspace.getByRole("button", { name: "New terminal" }).click();
  const first = shell(page, "Shell 1");
  await expect(first.getByTestId("terminal-state")).toHaveText("live", { timeout: 60_000 });
  await typeLine(page, first, "echo hello-$((6*7))");
  await expect(first.locator(".xterm-rows")).toContainText("hello-42");

  // A reload forgets the page, not the terminal: it is re-attached with its earlier output.
  await page.reload();
  await terminalTab.click();
  await expect(shells.getByRole("tab", { name: "Shell 1" })).toHaveAttribute(
    "aria-selected",
    "true",
  );
  await expect(first.getByTestId("terminal-state")).toHaveText("live");
  await expect(first.locator(".xterm-rows")).toContainText("hello-42");
  // Still a live shell, not a transcript.
  await typeLine(page, first, "echo again-$((2+3))");
  await expect(first.locator(".xterm-rows")).toContainText("again-5");

  // A second terminal beside the first: each tab keeps its own screen.
  await workspace.getByRole("button", { name: "New terminal" }).click();
  await expect(shells.getByRole("tab", { name: "Shell 2" })).toHaveAttribute(
    "aria-selected",
    "true",
  );
  const second = shell(page, "Shell 2");
  await expect(second.getByTestId("terminal-state")).toHaveText("live");
  await typeLine(page, second, "echo second-$((7*8))");
  await expect(second.locator(".xterm-rows")).toContainText("second-56");
  await expect(second.locator(".xterm-rows")).not.toContainText("hello-42");
  await expectPageShown(page, testInfo, { name: "session-terminals", heading: "Terminal session" });
  // The terminal takes its colours from the theme: dark follows the system setting.
  await page.emulateMedia({ colorScheme: "dark" });
  await expectPageShown(page, testInfo, {
    name: "session-terminals-dark",
    heading: "Terminal session",
  });
  await page.emulateMedia({ colorScheme: "light" });
  await shells.getByRole("tab", { name: "Shell 1" }).click();
  await expect(first.locator(".xterm-rows")).toContainText("hello-42");
  await expect(first.locator(".xterm-rows")).not.toContainText("second-56");
  await shells.getByRole("tab", { name: "Shell 2" }).click();
  await expect(second.locator(".xterm-rows")).toContainText("second-56");

  // Both come back after a reload, the one behind the other's tab included.
  await page.reload();
  await terminalTab.click();
  await expect(shells.getByRole("tab")).toHaveText(["Shell 1", "Shell 2"]);
  await expect(first.locator(".xterm-rows")).toContainText("again-5");
  await shells.getByRole("tab", { name: "Shell 2" }).click();
  await expect(second.locator(".xterm-rows")).toContainText("second-56");
  await expect(second.locator(".xterm-rows")).not.toContainText("hello-42");

  // A shell that exits says how; after a reload it still does, with its output.
  await typeLine(page, second, "exit 3");
  await expect(second.getByTestId("terminal-state")).toHaveText("exited with code 3");

  // Closed elsewhere (as another tab or an agent would): after a reload the page drops it with
  // a note instead of attaching to nothing.
  const stored = await page.evaluate(
    (key) => sessionStorage.getItem(key),
    `berth.terminals.${sessionId}`,
  );
  const [firstId] = (JSON.parse(stored ?? "[]") as { id: string }[]).map((t) => t.id);
  await call(page, {
    path: "terminal.close",
    input: { workspaceId, sessionId, id: firstId },
    kind: "mutation",
  });
  await page.reload();
  await terminalTab.click();
  await expect(workspace.getByRole("status").filter({ hasText: "Shell 1" })).toContainText(
    "no longer in the box",
  );
  await expect(shells.getByRole("tab")).toHaveText(["Shell 2"]);
  await expect(second.getByTestId("terminal-state")).toHaveText("exited with code 3");
  await expect(second.locator(".xterm-rows")).toContainText("second-56");

  // Closing from the page forgets it (an exited shell's holder went with its exit).
  await second.getByRole("button", { name: "Close terminal" }).click();
  await expect(shells).toHaveCount(0);
  await expect(workspace.getByText("No terminal open.")).toBeVisible();
  await page.reload();
  await terminalTab.click();
  await expect(workspace.getByText("No terminal open.")).toBeVisible();
});
