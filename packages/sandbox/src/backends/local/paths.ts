import { isAbsolute, relative } from "node:path";

/** Whether `path` is `folder` or inside it (by name: neither is resolved). */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
