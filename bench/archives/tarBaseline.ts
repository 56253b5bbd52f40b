import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { run, settleDisk } from "./world.ts";

export interface TarRun {
  readonly czfMs: number;
  readonly xzfMs: number;
  readonly tgzBytes: number;
}

/** The baseline: `tar -czf out.tgz -C tree .`, then `tar -xzf out.tgz -C fresh-dir`, each timed. */
export async function tarCycle(tree: string, scratch: string): Promise<TarRun> {
  const out = join(scratch, "out.tgz");
  const fresh = join(scratch, "fresh");
  await mkdir(fresh, { recursive: true });
  try {
    await settleDisk();
    let started = performance.now();
    await run("tar", ["-czf", out, "-C", tree, "."]);
    const czfMs = performance.now() - started;
    const tgzBytes = (await stat(out)).size;
    await settleDisk();
    started = performance.now();
    await run("tar", ["-xzf", out, "-C", fresh]);
    const xzfMs = performance.now() - started;
    return { czfMs, xzfMs, tgzBytes };
  } finally {
    await rm(out, { force: true });
    await rm(fresh, { recursive: true, force: true });
  }
}
