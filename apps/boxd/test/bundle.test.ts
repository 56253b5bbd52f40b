import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBoxd, tempFolder } from "./boxdProcess.ts";

const run = promisify(execFile);
const nodeFlags = JSON.parse(
  await readFile(join(import.meta.dirname, "..", "node-flags.json"), "utf8"),
) as string[];

let bundle = "";
let workspace = "";

beforeAll(async () => {
  // Inside the package, so the bundle finds node-pty (left outside it) as dist/ does.
  const cache = join(import.meta.dirname, "..", "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  bundle = await mkdtemp(join(cache, "bundle-test-"));
  await run(process.execPath, [join(import.meta.dirname, "../scripts/bundle.mjs"), bundle]);
  workspace = await tempFolder("bundle-ws-");
  await mkdir(join(workspace, "src"));
  await writeFile(join(workspace, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(join(workspace, "notes.md"), "# notes\n");
}, 60_000);

afterAll(async () => {
  if (bundle !== "") await rm(bundle, { recursive: true, force: true });
});

async function cacheStatus(flags: readonly string[] = nodeFlags): Promise<string> {
  const entry = join(bundle, "main.mjs");
  const { stdout } = await run(process.execPath, [...flags, entry, "--code-cache-status"]);
  return stdout.trim();
}

/** The workspace's revision as a boxd started with these node arguments computes it. */
async function revisionFrom(node?: readonly string[]): Promise<string> {
  const box = await startBoxd({ root: workspace, node });
  try {
    return (await box.client.revision()).revision;
  } finally {
    await box.stop();
  }
}

describe("the boxd bundle", () => {
  it("ships a code cache V8 takes under node-flags.json (and refuses without them)", async () => {
    expect(await cacheStatus()).toBe("accepted");
    expect(await cacheStatus([])).toBe("rejected");
  });

  it("serves as the sources do, from its cache, from a cache V8 refuses, and from none", async () => {
    const fromSources = await revisionFrom();
    const bundled = [...nodeFlags, join(bundle, "main.mjs")];
    expect(await revisionFrom(bundled)).toBe(fromSources);

    await writeFile(join(bundle, "daemon.cjs.cache"), "not a code cache");
    expect(await cacheStatus()).toBe("rejected");
    expect(await revisionFrom(bundled)).toBe(fromSources);

    await rm(join(bundle, "daemon.cjs.cache"));
    expect(await cacheStatus()).toBe("missing");
    expect(await revisionFrom(bundled)).toBe(fromSources);
  });
});
