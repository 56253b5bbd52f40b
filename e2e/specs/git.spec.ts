import { expect, test, type Page } from "@playwright/test";
import { expectPageShown } from "../pageChecks.ts";
import { call, groupBoxState, newSession, signIn, type SessionScope } from "../signedIn.ts";

// The session page's git panel on a real box: a repository made from the panel, a first commit
// and a change made through the API (as an agent would), then the change reviewed, staged and
// committed in the panel, each write naming the workspace generation it produced.

test.setTimeout(120_000);

type Scope = SessionScope;

async function openGitTab(page: Page, scope: Scope) {
  await page.goto(`/sessions/${scope.sessionId}?workspace=${scope.workspaceId}`);
  await page.getByRole("tab", { name: "Git" }).click();
  return page.getByRole("tabpanel", { name: "Git" });
}

/**
 * Leaves a session page inside the app, so it unmounts and lets its viewer go; a page left by
 * a full navigation keeps its viewer until the viewer TTL runs out.
 */
async function leavePage(page: Page) {
  await page.getByRole("banner").getByRole("link", { name: "Berth" }).click();
  await expect(page).toHaveURL((url) => url.pathname === "/");
}

test("the git panel makes a repository, shows a change's diff, stages and commits it", async ({
  page,
}, testInfo) => {
  await signIn(page);
  const scope = await newSession(page, "Git session");

  // A fresh box's workspace has no repository: the panel says so and makes one.
  let git = await openGitTab(page, scope);
  await expect(git.getByText("The workspace is not a git repository yet")).toBeVisible({
    timeout: 60_000,
  });
  await git.getByRole("button", { name: "Initialize repository" }).click();
  const status = git.getByRole("status");
  await expect(status).toHaveText(/^Initialized the repository · generation \d+$/);
  await expect(git.getByText("Nothing to commit: the working tree is clean")).toBeVisible();
  await expect(git.getByText("No commits yet", { exact: true })).toBeVisible();
  await expect(git.getByTestId("git-branch")).toHaveText("On branch main (no commits yet)");
  await leavePage(page);

  // A first commit and then a change, made elsewhere (straight through the API).
  const write = (content: string) =>
    call(page, {
      path: "fs.write",
      input: { ...scope, path: "notes.txt", content },
      kind: "mutation",
    });
  await write("first line\n");
  await call(page, {
    path: "git.add",
    input: { ...scope, paths: ["notes.txt"] },
    kind: "mutation",
  });
  await call(page, {
    path: "git.commit",
    input: { ...scope, message: "Start the notes" },
    kind: "mutation",
  });
  await write("first line\nsecond line from the test\n");

  git = await openGitTab(page, scope);
  const files = git.getByRole("list", { name: "Changed files" });
  await expect(files.getByTestId("git-file")).toHaveCount(1);
  const file = files.getByTestId("git-file").filter({ hasText: "notes.txt" });
  await expect(file).toContainText("unstaged · modified");
  await expect(git.getByTestId("git-branch")).toHaveText("On branch main");

  // The diff: the added line tinted as added, numbered 2 in the new file; the old line context.
  await file.getByRole("button", { name: "notes.txt", exact: true }).click();
  const unstaged = git.getByRole("table", { name: "Unstaged changes of notes.txt" });
  const added = unstaged.locator('tr[data-kind="added"]');
  await expect(added).toHaveCount(1);
  await expect(added).toContainText("+second line from the test");
  await expect(added.getByRole("cell").nth(1)).toHaveText("2");
  await expect(unstaged.locator('tr[data-kind="context"]')).toContainText("first line");
  await expectPageShown(page, testInfo, { name: "session-git-diff", heading: "Git session" });

  // Nothing staged yet: Commit waits for a staged file and a message.
  const commitButton = git.getByRole("button", { name: "Commit", exact: true });
  await git.getByLabel("Commit message").fill("Add a second line");
  await expect(commitButton).toBeDisabled();

  await file.getByRole("button", { name: "Stage notes.txt" }).click();
  await expect(status).toHaveText(/^Staged notes\.txt · generation \d+$/);
  await expect(file).toContainText("staged · modified");
  await expect(file).not.toContainText("unstaged");
  await expect(
    git
      .getByRole("table", { name: "Staged changes of notes.txt" })
      .locator('tr[data-kind="added"]'),
  ).toContainText("+second line from the test");

  await expect(commitButton).toBeEnabled();
  await commitButton.click();
  await expect(status).toHaveText(/^Committed [0-9a-f]{7} · generation \d+$/);
  const [, hash = "", generation = ""] =
    /^Committed ([0-9a-f]{7}) · generation (\d+)$/.exec((await status.textContent()) ?? "") ?? [];

  // The generation is the workspace's own: the machines table reaches it.
  await expect(
    page.getByRole("region", { name: "Machines" }).getByTestId("machine-generations").first(),
  ).toHaveText(new RegExp(`^${generation} /`));

  // The log has the commit on top, and the tree is clean again.
  const commits = git.getByRole("list", { name: "Recent commits" }).getByTestId("git-commit");
  await expect(commits).toHaveCount(2);
  await expect(commits.first()).toContainText(hash);
  await expect(commits.first()).toContainText("Add a second line");
  await expect(commits.nth(1)).toContainText("Start the notes");
  await expect(git.getByText("Nothing to commit: the working tree is clean")).toBeVisible();
  await expect(git.getByLabel("Commit message")).toHaveValue("");

  // A new branch from here, then back to main from the switch.
  const newBranch = git.getByRole("form", { name: "New branch" });
  await newBranch.getByLabel("New branch").fill("feature");
  await newBranch.getByRole("button", { name: "Create" }).click();
  await expect(status).toHaveText(/^Created and switched to feature · generation \d+$/);
  await expect(git.getByTestId("git-branch")).toHaveText("On branch feature");
  const switcher = git.getByRole("form", { name: "Switch branch" });
  await switcher.getByLabel("Switch to").selectOption("main");
  await switcher.getByRole("button", { name: "Switch", exact: true }).click();
  await expect(status).toHaveText(/^Switched to main · generation \d+$/);
  await expect(git.getByTestId("git-branch")).toHaveText("On branch main");

  await expectPageShown(page, testInfo, { name: "session-git", heading: "Git session" });

  // With no page viewing it, the box drains: a viewer left behind would keep it warm into the
  // other specs, whose overview counts warm boxes.
  await leavePage(page);
  await expect
    .poll(async () => {
      return groupBoxState(page, scope);
    })
    .toBe("draining");
});
