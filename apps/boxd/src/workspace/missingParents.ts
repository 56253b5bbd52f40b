import { BoxError, type ManifestEntry } from "@berth/box-protocol";

/**
 * The folders above an archive entry that no earlier entry made, parents first, recorded in
 * `entries` as the 0755 folders the writer will create. Refused: a path that runs through a
 * symlink this archive made, since writing below it would write through the link.
 */
export function missingParents(
  components: readonly string[],
  entries: Map<string, ManifestEntry>,
): string[] {
  const missing: string[] = [];
  for (let level = 1; level < components.length; level += 1) {
    const path = components.slice(0, level).join("/");
    const existing = entries.get(path);
    if (existing?.type === "symlink") {
      throw new BoxError(
        "outside_workspace",
        `${path}: is a symlink, and entries below it would be written through it; refused`,
      );
    }
    if (existing === undefined) {
      entries.set(path, { path, type: "dir", mode: 0o755 });
      missing.push(path);
    }
  }
  return missing;
}
