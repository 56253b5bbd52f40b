import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { run, settleDisk } from "./world.ts";

export interface TarRun {
  readonly czfMs: number;
  readonly xzfMs: number;
  readonly tgzBytes: number;
}

/** The baseline: `tar -czf out.tgz -C tree .`, then `tar -xzf out.tgz -C fresh-dir`, each timed. */
export async function tarCycle(tree: string, scratch: string): Promise<TarRun> {
  // Kept until the run ends, as Berth's boxes are (see ArchiveWorld.lose).
  const round = join(scratch, crypto.randomUUID());
  const out = join(round, "out.tgz");
  const fresh = join(round, "fresh");
  await mkdir(fresh, { recursive: true });
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
}
