import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { expectPageShown } from "../pageChecks.ts";
import { call, groupBoxState, newSession, signIn, type SessionScope } from "../signedIn.ts";

// The session page's Files tab against a real box: what it writes is what the box holds, each
// write shows the generation the machines table shows, and a change made elsewhere meanwhile
// is reported, never overwritten.

/** The session the running test opened, so its box is left idle after it (see afterEach). */
let opened: SessionScope | undefined;

// Leaves the session page by a link, so the page detaches its viewer and the box drains: the
// specs after this one count live boxes and expect only their own.
test.afterEach(async ({ page }) => {
  const scope = opened;
  opened = undefined;
  if (scope === undefined) return;
  await page.getByRole("link", { name: "Berth" }).click();
  await expect(page.getByRole("region", { name: "Sessions" })).toBeVisible();
  await expect
    .poll(async () => {
      return groupBoxState(page, scope);
    })
    .not.toBe("warm");
});

/** A new session of the demo workspace, its page open on the Files tab. */
async function openFilesOfNewSession(page: Page, seed?: { path: string; content: string }) {
  await signIn(page);
  const scope = await newSession(page, "Files session");
  const { workspaceId } = scope;
  opened = scope;
  const seeded =
    seed === undefined
      ? undefined
      : ((await call(page, {
          path: "fs.write",
          input: { ...scope, ...seed },
          kind: "mutation",
        })) as { generation: number });
  await page.goto(`/sessions/${scope.sessionId}?workspace=${workspaceId}`);
  await expect(page.getByRole("heading", { name: "Files session", level: 1 })).toBeVisible();
  const workspace = page.getByRole("region", { name: "Workspace" });
  await workspace.getByRole("tab", { name: "Files" }).click();
  return {
    scope,
    seeded,
    workspace,
    tree: workspace.getByRole("navigation", { name: "Workspace files" }),
    status: workspace.getByRole("status"),
    generations: page.getByRole("region", { name: "Machines" }).getByTestId("machine-generations"),
  };
}

test("a file is edited and saved with its generation; a change made meanwhile is a conflict, not overwritten", async ({
  page,
}, testInfo) => {
  const { scope, seeded, workspace, tree, status, generations } = await openFilesOfNewSession(
    page,
    { path: "notes.md", content: "# Notes\n\nwritten by the API\n" },
  );
  await tree.getByRole("button", { name: "notes.md", exact: true }).click();
  const editor = workspace.getByRole("textbox", { name: "Contents of /workspace/notes.md" });
  await expect(editor).toContainText("written by the API");
  await expect(editor).toHaveAttribute("contenteditable", "false");

  await workspace.getByRole("button", { name: "Edit" }).click();
  await expect(editor).toHaveAttribute("contenteditable", "true");
  await editor.press("ControlOrMeta+a");
  await page.keyboard.insertText("# Notes\n\nsaved from the page\n");
  await workspace.getByRole("button", { name: "Save" }).click();

  await expect(status).toContainText(/Saved · generation \d+/);
  const saved = Number(/generation (\d+)/.exec((await status.textContent()) ?? "")?.[1]);
  expect(saved).toBe((seeded?.generation ?? Number.NaN) + 1);
  // The machines table follows without a reload.
  await expect(generations).toHaveText(new RegExp(`^${String(saved)} / `));
  const afterSave = (await call(page, {
    path: "fs.read",
    input: { ...scope, path: "notes.md" },
    kind: "query",
  })) as { content: string };
  expect(afterSave.content).toBe("# Notes\n\nsaved from the page\n");
  await expect(editor).toHaveAttribute("contenteditable", "false");
  await expectPageShown(page, testInfo, { name: "session-files", heading: "Files session" });

  // Someone else writes the file while it is being edited here.
  await workspace.getByRole("button", { name: "Edit" }).click();
  await editor.press("ControlOrMeta+a");
  await page.keyboard.insertText("my edit, made on a stale copy\n");
  await call(page, {
    path: "fs.write",
    input: { ...scope, path: "notes.md", content: "changed by an agent\n" },
    kind: "mutation",
  });
  await workspace.getByRole("button", { name: "Save" }).click();
  const conflict = workspace.getByRole("alert").filter({ hasText: "changed in the box" });
  await expect(conflict).toBeVisible();
  await expect(status).toContainText(`generation ${String(saved)} `);
  const afterConflict = (await call(page, {
    path: "fs.read",
    input: { ...scope, path: "notes.md" },
    kind: "query",
  })) as { content: string };
  expect(afterConflict.content).toBe("changed by an agent\n");

  // Reload discards the stale edit and shows what the box holds.
  await conflict.getByRole("button", { name: "Reload" }).click();
  await expect(conflict).toHaveCount(0);
  await expect(editor).toContainText("changed by an agent");
  await expect(editor).not.toContainText("my edit");
  await expect(editor).toHaveAttribute("contenteditable", "false");
});

test("a file is uploaded and downloaded with progress, renamed, and deleted after confirmation", async ({
  page,
}) => {
  const { scope, workspace, tree, status } = await openFilesOfNewSession(page);
  await expect(workspace.getByText("The workspace is empty.")).toBeVisible();

  await workspace.getByRole("button", { name: "New folder" }).click();
  await workspace.getByRole("textbox", { name: "New folder in /workspace" }).fill("data");
  await workspace.getByRole("button", { name: "Create folder" }).click();
  await expect(status).toContainText(/Created · generation \d+ · \/workspace\/data/);
  await expect(tree.getByRole("button", { name: "data (folder)" })).toBeVisible();

  // The folder is selected: the upload goes into it.
  const bytes = randomBytes(3 * 1024 * 1024 + 17);
  await workspace.getByLabel("Upload a file").setInputFiles({
    name: "blob.bin",
    mimeType: "application/octet-stream",
    buffer: bytes,
  });
  const uploadBar = workspace.getByRole("progressbar", { name: "Uploaded blob.bin" });
  await expect(uploadBar).toHaveAttribute("aria-valuenow", "100");
  await expect(status).toContainText(/Uploaded · generation \d+ · \/workspace\/data\/blob\.bin/);
  await expect(tree.getByRole("button", { name: "blob.bin", exact: true })).toBeVisible();
  const stat = (await call(page, {
    path: "fs.stat",
    input: { ...scope, path: "data/blob.bin" },
    kind: "query",
  })) as { entry: { size: number } };
  expect(stat.entry.size).toBe(bytes.length);

  await workspace.getByRole("button", { name: "Rename" }).click();
  const rename = workspace.getByRole("form", { name: "New name for /workspace/data/blob.bin" });
  await rename.getByRole("textbox").fill("copy.bin");
  await rename.getByRole("button", { name: "Rename" }).click();
  await expect(status).toContainText(/Renamed · generation \d+ · \/workspace\/data\/copy\.bin/);
  await expect(tree.getByRole("button", { name: "copy.bin", exact: true })).toBeVisible();
  await expect(tree.getByRole("button", { name: "blob.bin", exact: true })).toHaveCount(0);

  const downloading = page.waitForEvent("download");
  await workspace.getByRole("button", { name: "Download" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("copy.bin");
  const downloaded = await readFile(await download.path());
  expect(downloaded.equals(bytes)).toBe(true);
  await expect(workspace.getByRole("progressbar", { name: "Downloaded copy.bin" })).toHaveAttribute(
    "aria-valuenow",
    "100",
  );

  // Cancel keeps the file; confirming removes it.
  await workspace.getByRole("button", { name: "Delete" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete /workspace/data/copy.bin?" });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
  await expect(tree.getByRole("button", { name: "copy.bin", exact: true })).toBeVisible();

  await workspace.getByRole("button", { name: "Delete" }).click();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(confirm).toHaveCount(0);
  await expect(status).toContainText(/Deleted · generation \d+ · \/workspace\/data\/copy\.bin/);
  await expect(tree.getByRole("button", { name: "copy.bin", exact: true })).toHaveCount(0);
  await expect(tree.getByText("Empty folder")).toBeVisible();
  const listing = (await call(page, {
    path: "fs.list",
    input: { ...scope, path: "data" },
    kind: "query",
  })) as { entries: unknown[] };
  expect(listing.entries).toEqual([]);
});
