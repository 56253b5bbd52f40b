import { randomBytes } from "node:crypto";

/**
 * Names boxd gives its own in-flight files: temp files of atomic writes and hydrate staging
 * folders. They are reserved (no client path may use one), hidden from list, manifest and
 * capture, and the ones an earlier run left behind (a crash or SIGKILL mid-write) are swept
 * at start. The boot id keeps the sweep away from this run's own in-flight files.
 */
const PREFIX = ".berth-tmp-";
const bootId = randomBytes(4).toString("hex");

export function isTempName(name: string): boolean {
  return name.startsWith(PREFIX);
}

/** A temp name belonging to an earlier run of boxd. */
export function isStaleTempName(name: string): boolean {
  return isTempName(name) && !name.startsWith(`${PREFIX}${bootId}-`);
}

export function newTempName(purpose: string): string {
  return `${PREFIX}${bootId}-${purpose}-${randomBytes(6).toString("hex")}`;
}
