import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import { MANIFEST_PAX_KEY } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startBoxd, tempFolder, type BoxdProcess } from "./boxdProcess.ts";
import { tarOf, type FixtureEntry } from "./tarFixtures.ts";

let source: BoxdProcess;
let target: BoxdProcess;
beforeAll(async () => {
  [source, target] = await Promise.all([startBoxd(), startBoxd()]);
});
afterAll(async () => {
  await Promise.all([source.stop(), target.stop()]);
});

/** Empties the target workspace between hydrate attempts. */
async function emptyTarget(): Promise<void> {
  for (const entry of (await target.client.list({ path: "" })).entries) {
    await target.client.remove({ path: entry.path, recursive: true });
  }
}

describe("manifest, capture and hydrate", () => {
  it("round-trips binary files, modes, symlinks and empty folders to the same revision", async () => {
    const root = source.root;
    const binary = randomBytes(3 * 1024 * 1024 + 17);
    await mkdir(join(root, "src/deep/er"), { recursive: true });
    await mkdir(join(root, "empty/nested-empty"), { recursive: true });
    await mkdir(join(root, "private"), { mode: 0o700 });
    await chmod(join(root, "private"), 0o700);
    await writeFile(join(root, "src/deep/er/blob.bin"), binary);
    await writeFile(join(root, "run.sh"), "#!/bin/sh\necho hi\n");
    await chmod(join(root, "run.sh"), 0o755);
    await writeFile(join(root, "private/key"), "k");
    await chmod(join(root, "private/key"), 0o600);
    await writeFile(join(root, "empty-file"), "");
    await writeFile(join(root, "new\nline ü 文.txt"), "unicode");
    // A user file with the manifest entry's name: the pax mark, not the name, is what counts.
    await writeFile(join(root, ".berth-manifest.json"), '{"mine":true}');
    await symlink("src/deep/er/blob.bin", join(root, "blob-link"));
    await symlink("../run.sh", join(root, "src/run-link"));
    await symlink("deep", join(root, "src/deep-link"));

    const { revision, manifest } = await source.client.manifest();
    expect(manifest.entries.find((entry) => entry.path === "run.sh")).toMatchObject({
      type: "file",
      mode: 0o755,
    });
    expect(manifest.entries.find((entry) => entry.path === "private")).toEqual({
      path: "private",
      type: "dir",
      mode: 0o700,
    });
    expect(manifest.entries.find((entry) => entry.path === "src/run-link")).toEqual({
      path: "src/run-link",
      type: "symlink",
      mode: 0o777,
      target: "../run.sh",
    });
    expect(manifest.entries.map((entry) => entry.path)).toContain("empty/nested-empty");

    const archivePath = join(await tempFolder("boxd-archive-"), "capture.tar");
    const captured = await source.client.capture({ destination: createWriteStream(archivePath) });
    expect(captured.revision).toBe(revision);
    expect(captured.manifest).toEqual(manifest);
    // An ordinary tar reads it too (it may warn about the unknown BERTH.manifest pax record).
    const listed = execFileSync("tar", ["-tf", archivePath], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    expect(listed).toContain("src/deep/er/blob.bin");

    const hydrated = await target.client.hydrate({ body: createReadStream(archivePath) });
    expect(hydrated).toEqual({ revision, entries: manifest.entries.length, verified: true });
    expect((await target.client.manifest()).revision).toBe(revision);
    // What a restore compares: the same revision, without the list of entries.
    expect(await target.client.revision()).toEqual({ revision, entries: manifest.entries.length });

    const copy = target.root;
    expect((await readFile(join(copy, "src/deep/er/blob.bin"))).equals(binary)).toBe(true);
    expect((await lstat(join(copy, "run.sh"))).mode & 0o7777).toBe(0o755);
    expect((await lstat(join(copy, "private"))).mode & 0o7777).toBe(0o700);
    expect(await readlink(join(copy, "src/deep-link"))).toBe("deep");
    expect(await readFile(join(copy, ".berth-manifest.json"), "utf8")).toBe('{"mine":true}');
    expect(await readdir(join(copy, "empty/nested-empty"))).toEqual([]);
  });

  it("hydrates only into an empty workspace", async () => {
    await target.client.write({ path: "already-here.txt", content: "x", createParents: true });
    const archive = await tarOf([{ name: "a.txt", body: "a" }]);
    expect(await errorCode(target.client.hydrate({ body: archive }))).toBe("not_empty");
    expect((await target.client.read({ path: "already-here.txt" })).content).toBe("x");
    await emptyTarget();
    expect((await target.client.hydrate({ body: archive })).verified).toBe(false);
    await emptyTarget();
  });

  it("refuses hostile archives and leaves the workspace empty", async () => {
    await emptyTarget();
    const outside = await tempFolder("boxd-tar-outside-");
    const cases: [string, FixtureEntry[], string][] = [
      ["an absolute path", [{ name: join(outside, "abs.txt"), body: "x" }], "outside_workspace"],
      ["a .. path", [{ name: "ok/../../escaped.txt", body: "x" }], "outside_workspace"],
      [
        "a write through a symlink it just made",
        [
          { name: "evil", type: "symlink", linkname: outside },
          { name: "evil/pwned.txt", body: "x" },
        ],
        "outside_workspace",
      ],
      [
        "a write through an inside symlink",
        [
          { name: "dir", type: "directory" },
          { name: "alias", type: "symlink", linkname: "dir" },
          { name: "alias/x.txt", body: "x" },
        ],
        "outside_workspace",
      ],
      ["a hardlink", [{ name: "hl", type: "link", linkname: "/etc/passwd" }], "invalid_archive"],
      ["a FIFO", [{ name: "pipe", type: "fifo" }], "invalid_archive"],
      [
        "a duplicate",
        [
          { name: "twice.txt", body: "1" },
          { name: "twice.txt", body: "2" },
        ],
        "invalid_archive",
      ],
      [
        "a manifest that does not match",
        [
          { name: "a.txt", body: "a" },
          {
            name: ".berth-manifest.json",
            body: JSON.stringify({ format: "berth.manifest/1", entries: [] }),
            pax: { [MANIFEST_PAX_KEY]: "1" },
          },
        ],
        "invalid_archive",
      ],
      ["a reserved name", [{ name: ".berth-tmp-x", body: "x" }], "invalid_archive"],
      ["not a tar at all", [], "invalid_archive"],
    ];
    for (const [what, entries, code] of cases) {
      const body =
        entries.length === 0 ? "this is not a tar archive ".repeat(40) : await tarOf(entries);
      const outcome = await errorCode(target.client.hydrate({ body }));
      expect(`${what}: ${outcome}`).toBe(`${what}: ${code}`);
      expect(await readdir(target.root)).toEqual([]);
    }
    expect(await readdir(outside)).toEqual([]);
  });

  it("hydrates a gzip-compressed tar, and refuses a body that is not gzip or a hostile tar inside one", async () => {
    await emptyTarget();
    const archive = await tarOf([
      { name: "src/main.c", body: "int main(void) { return 0; }\n" },
      { name: "notes.txt", body: "compressed on the wire" },
    ]);
    const plain = await target.client.hydrate({ body: archive });
    await emptyTarget();
    const gzipped = await target.client.hydrate({ body: gzipSync(archive), encoding: "gzip" });
    expect(gzipped).toEqual(plain);
    expect((await target.client.read({ path: "notes.txt" })).content).toBe(
      "compressed on the wire",
    );
    await emptyTarget();

    const hostile = gzipSync(await tarOf([{ name: "ok/../../escaped.txt", body: "x" }]));
    const corrupt = Buffer.from(gzipSync(archive));
    corrupt.writeUInt32LE((corrupt.readUInt32LE(corrupt.length - 8) ^ 1) >>> 0, corrupt.length - 8);
    for (const [what, body, code] of [
      ["a plain tar said to be gzip", archive, "invalid_archive"],
      ["a gzip stream whose checksum is wrong", corrupt, "invalid_archive"],
      ["a hostile tar inside gzip", hostile, "outside_workspace"],
    ] as const) {
      const outcome = await errorCode(target.client.hydrate({ body, encoding: "gzip" }));
      expect(`${what}: ${outcome}`).toBe(`${what}: ${code}`);
      expect(await readdir(target.root)).toEqual([]);
    }
    // boxd still serves after each refusal: the rest of every body was read.
    expect(
      (await target.client.hydrate({ body: gzipSync(archive), encoding: "gzip" })).entries,
    ).toBe(plain.entries);
    await emptyTarget();
  });

  it("captures an empty workspace as an archive holding only its manifest", async () => {
    await emptyTarget();
    const archivePath = join(await tempFolder("boxd-archive-"), "empty.tar");
    const captured = await target.client.capture({ destination: createWriteStream(archivePath) });
    expect(captured.manifest.entries).toEqual([]);
    expect(captured.revision).toBe((await target.client.manifest()).revision);
  });

  it("a file that shrinks while it is captured fails that capture, and boxd keeps serving", async () => {
    const own = await startBoxd();
    try {
      await writeFile(join(own.root, "big.bin"), randomBytes(24 * 1024 * 1024));
      // A slow reader keeps the capture inside the file when it is cut short: cut once 1 MB of
      // it has arrived (so the capture is reading it, however loaded the machine is).
      let received = 0;
      let cut: Promise<void> | undefined;
      const slow = new Writable({
        highWaterMark: 16 * 1024,
        write(chunk: Buffer, _encoding, callback) {
          received += chunk.length;
          if (received > 1024 * 1024) cut ??= truncate(join(own.root, "big.bin"), 0);
          setTimeout(callback, 2);
        },
      });
      const capture = own.client.capture({ destination: slow });

      expect(await errorCode(capture)).toBe("unavailable");
      expect(cut).toBeDefined();
      await cut;
      expect(await own.client.health()).toMatchObject({ ok: true });
      const again = await own.client.capture({ destination: new PassThrough().resume() });
      expect(again.revision).toBe((await own.client.manifest()).revision);
    } finally {
      await own.stop();
    }
  });
});
