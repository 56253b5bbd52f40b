import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, CanonicalJsonError } from "./canonicalJson.ts";
import { createManifest, entryJson, manifestRevision, type ManifestEntry } from "./manifest.ts";
import { decodeUploadQuery, encodeUploadQuery } from "./uploadQuery.ts";

const entries: ManifestEntry[] = [
  { path: "b", type: "dir", mode: 0o755 },
  { path: "a.txt", type: "file", mode: 0o644, size: 1, sha256: "0".repeat(64) },
  { path: "b/link", type: "symlink", mode: 0o777, target: "../a.txt" },
];

describe("manifests", () => {
  it("sorts entries by path and hashes the canonical JSON as the revision", () => {
    const manifest = createManifest(entries);
    expect(manifest.entries.map((entry) => entry.path)).toEqual(["a.txt", "b", "b/link"]);
    const expected = createHash("sha256").update(canonicalJson(manifest)).digest("hex");
    expect(manifestRevision(manifest)).toBe(expected);
  });

  it("hashes entry by entry exactly the bytes of the whole canonical JSON (empty, unicode, quotes)", () => {
    const odd = createManifest([
      ...entries,
      { path: 'new\nline "ü" 文.txt', type: "file", mode: 0, size: 0, sha256: "f".repeat(64) },
      { path: "z", type: "symlink", mode: 0o777, target: "\u0001\\" },
    ]);
    for (const manifest of [createManifest([]), odd]) {
      const whole = createHash("sha256").update(canonicalJson(manifest), "utf8").digest("hex");
      expect(manifestRevision(manifest)).toBe(whole);
    }
  });

  it("hashes a manifest of many hashing batches as the bytes of its whole canonical JSON", () => {
    const many = createManifest(
      Array.from({ length: 3000 }, (_, i): ManifestEntry => ({
        path: `src/文件-${String(i).padStart(4, "0")}.ts`,
        type: "file",
        mode: 0o644,
        size: i,
        sha256: "a".repeat(64),
      })),
    );
    expect(canonicalJson(many).length).toBeGreaterThan(3 * 65_536);
    const whole = createHash("sha256").update(canonicalJson(many), "utf8").digest("hex");
    expect(manifestRevision(many)).toBe(whole);
  });

  it("writes an entry as canonicalJson does, off-shape entries (stray key, odd number) included", () => {
    const file = entries[1] as ManifestEntry;
    const offShape = [
      { ...file, mtime: 5 },
      { ...file, size: 1.5 },
      { path: "d", type: "dir", mode: 0o755, target: "x" },
      { path: "l", type: "symlink", mode: 0o777 },
    ] as unknown as ManifestEntry[];
    for (const entry of [...entries, ...offShape]) {
      expect(entryJson(entry)).toBe(canonicalJson(entry));
    }
    const broken = { ...file, size: Number.NaN };
    expect(() => entryJson(broken)).toThrow(CanonicalJsonError);
  });

  it("gives the same revision whatever order entries were found in, and another for any change", () => {
    const revision = manifestRevision(createManifest(entries));
    expect(manifestRevision(createManifest([...entries].reverse()))).toBe(revision);
    const chmodded = entries.map((entry) =>
      entry.path === "b" ? { ...entry, mode: 0o700 } : entry,
    );
    expect(manifestRevision(createManifest(chmodded))).not.toBe(revision);
  });
});

describe("upload query", () => {
  it("round-trips every option, null version included", () => {
    const options = { path: "a b/ü.txt", expectedVersion: null, mode: 0o755, createParents: true };
    const query = new URLSearchParams(encodeUploadQuery(options) as Record<string, string>);
    expect(decodeUploadQuery(query)).toEqual(options);
    const bare = new URLSearchParams({ path: "x" });
    expect(decodeUploadQuery(bare)).toEqual({ path: "x", createParents: false });
  });
});
