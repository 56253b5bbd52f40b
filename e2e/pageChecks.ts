import { expect, type Page, type TestInfo } from "@playwright/test";

/**
 * A main page rendered as a person sees it: its level-1 heading is shown (named `heading`, when
 * given), Next's error overlay is absent, and a full-page screenshot `<name>.png` is kept with
 * the test's results (in its output folder and attached to the report).
 */
export async function expectPageShown(
  page: Page,
  testInfo: TestInfo,
  { name, heading }: { name: string; heading?: string },
): Promise<void> {
  await expect(
    page.getByRole("heading", { level: 1, ...(heading === undefined ? {} : { name: heading }) }),
  ).toBeVisible();
  await expect(page.locator("nextjs-portal")).toHaveCount(0);
  // From the top: the sticky top bar is drawn where the page is scrolled to.
  await page.evaluate(() => {
    window.scrollTo(0, 0);
  });
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: "image/png" });
}
