import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { expectPageShown } from "../pageChecks.ts";
import { signIn } from "../signedIn.ts";

/** The newest migration in the repository: what a freshly migrated database reports. */
const newestMigration =
  readdirSync(join(import.meta.dirname, "..", "..", "prisma", "migrations"))
    .sort()
    .at(-1) ?? "";

test("the status page shows the build, the database engine, the latest migration and whether the archive store answers to anyone", async ({
  page,
}, testInfo) => {
  await page.goto("/status");

  await expect(page.getByRole("heading", { name: "Berth", level: 1 })).toBeVisible();
  const status = page.getByRole("region", { name: "Status" });
  await expect(status).toBeVisible();
  await expect(page.getByTestId("version")).toHaveText("0.1.0");
  await expect(page.getByTestId("git-revision")).toHaveText(/^([0-9a-f]{12}|unknown)$/);
  await expect(page.getByTestId("database-engine")).toHaveText("PostgreSQL");
  await expect(page.getByTestId("latest-migration")).toHaveText(
    new RegExp(`^${newestMigration} \\(applied \\d{4}-`),
  );
  await expect(page.getByTestId("archive-store")).toHaveText("Folder, reachable");
  // Where the database and the archives are, and what server it runs, are for admins only.
  await expect(page.getByTestId("database-version")).toHaveCount(0);
  await expect(page.getByTestId("database-url")).toHaveCount(0);
  await expect(page.getByTestId("archive-location")).toHaveCount(0);

  await expectPageShown(page, testInfo, { name: "status", heading: "Berth" });
});

test("a workspace admin also sees the database's server, its redacted URL and where the archives are", async ({
  page,
}) => {
  await signIn(page);
  await page.goto("/status");
  await expect(page.getByTestId("database-version")).toHaveText(/^PostgreSQL \d+/);
  // The e2e database is a testkit clone; its URL is shown with the password redacted.
  await expect(page.getByTestId("database-url")).toHaveText(/berth_test_/);
  await expect(page.getByTestId("database-url")).not.toHaveText(/:postgres@/);
  await expect(page.getByTestId("archive-location")).toHaveText(/^file:\/\/\/.+\/archives$/);
});
