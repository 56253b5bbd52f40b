import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundleProblemOf, defaultBoxdEntry } from "./boxdEntry.ts";

const checkout = await mkdtemp(join(tmpdir(), "berth-entry-"));
afterAll(async () => {
  await rm(checkout, { recursive: true, force: true });
});

/** A checkout's layout: boxd's sources, box-protocol's, and a bundle built at `builtAt`. */
async function layout(builtAt: Date): Promise<string> {
  const entry = join(checkout, "apps/boxd/dist/main.mjs");
  for (const folder of ["apps/boxd/src", "packages/box-protocol/src", "apps/boxd/dist"])
    await mkdir(join(checkout, folder), { recursive: true });
  await writeFile(join(checkout, "apps/boxd/src/main.ts"), "");
  await writeFile(join(checkout, "packages/box-protocol/src/index.ts"), "");
  await writeFile(entry, "");
  await utimes(entry, builtAt, builtAt);
  return entry;
}

describe("boxd's entry", () => {
  it("is the built bundle, which runs boxes while it is newer than its sources", async () => {
    expect(defaultBoxdEntry("/repo")).toBe("/repo/apps/boxd/dist/main.mjs");
    expect(bundleProblemOf(await layout(new Date(Date.now() + 60_000)))).toBeUndefined();
  });

  it("refuses sources, a missing bundle and a stale one, each saying to build", async () => {
    expect(bundleProblemOf(join(checkout, "apps/boxd/src/main.ts"))).toMatch(
      /TypeScript: a box runs only boxd's built bundle; run `pnpm turbo run build`/,
    );
    expect(bundleProblemOf(join(checkout, "nowhere/main.mjs"))).toMatch(/missing: run `pnpm/);
    expect(bundleProblemOf(await layout(new Date(Date.now() - 60_000)))).toMatch(
      /older than its sources: run `pnpm turbo run build`/,
    );
  });
});
