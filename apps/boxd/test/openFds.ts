import { readdirSync, readlinkSync, realpathSync } from "node:fs";

/** This process's descriptors on anything in `folder` (a thread's included). */
export function fdsInto(folder: string): string[] {
  const real = realpathSync(folder);
  return readdirSync("/proc/self/fd")
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ""; // Closed between the listing and the look.
      }
    })
    .filter((target) => target === real || target.startsWith(`${real}/`));
}
