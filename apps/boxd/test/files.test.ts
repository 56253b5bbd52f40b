import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startBoxd, type BoxdProcess } from "./boxdProcess.ts";

let boxd: BoxdProcess;
beforeAll(async () => {
  boxd = await startBoxd();
});
afterAll(async () => {
  await boxd.stop();
});

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");

describe("files", () => {
  it("writes, reads, stats, lists, moves and removes", async () => {
    const { client } = boxd;
    const written = await client.write({
      path: "notes/a.txt",
      content: "one\n",
      createParents: true,
    });
    expect(written).toEqual({ path: "notes/a.txt", version: sha256("one\n"), size: 4 });
    expect(await readFile(join(boxd.root, "notes/a.txt"), "utf8")).toBe("one\n");

    const read = await client.read({ path: "notes/a.txt" });
    expect(read).toMatchObject({ content: "one\n", size: 4, eof: true, version: written.version });

    await client.mkdir({ path: "notes/sub/deeper", parents: true });
    const stat = await client.stat({ path: "notes/a.txt" });
    expect(stat.entry).toMatchObject({ name: "a.txt", type: "file", size: 4, mode: 0o644 });

    const listing = await client.list({ path: "notes" });
    expect(listing.entries.map((entry) => [entry.name, entry.type])).toEqual([
      ["a.txt", "file"],
      ["sub", "dir"],
    ]);

    await client.move({ from: "notes/a.txt", to: "notes/sub/b.txt" });
    expect(await errorCode(client.stat({ path: "notes/a.txt" }))).toBe("not_found");
    await client.write({ path: "notes/c.txt", content: "c" });
    expect(await errorCode(client.move({ from: "notes/c.txt", to: "notes/sub/b.txt" }))).toBe(
      "already_exists",
    );
    await client.move({ from: "notes/c.txt", to: "notes/sub/b.txt", overwrite: true });
    expect((await client.read({ path: "notes/sub/b.txt" })).content).toBe("c");

    expect(await errorCode(client.remove({ path: "notes" }))).toBe("not_empty");
    await client.remove({ path: "notes", recursive: true });
    expect(await readdir(boxd.root)).toEqual([]);
  });

  it("keeps names with newlines, spaces and any Unicode as they are", async () => {
    const names = ["line\nbreak.txt", "ünïcødé 文件 🚀.md", "-rf", "--help", " spaced "];
    for (const name of names) {
      await boxd.client.write({ path: `odd/${name}`, content: name, createParents: true });
    }
    const listed = (await boxd.client.list({ path: "odd" })).entries.map((entry) => entry.name);
    expect(listed.sort()).toEqual([...names].sort());
    for (const name of names) {
      expect((await boxd.client.read({ path: `odd/${name}` })).content).toBe(name);
      expect(await readFile(join(boxd.root, "odd", name), "utf8")).toBe(name);
    }
    await boxd.client.remove({ path: "odd", recursive: true });
  });

  it("honours the version precondition and reports a conflict as version_conflict", async () => {
    const { client } = boxd;
    const first = await client.write({ path: "v.txt", content: "1", expectedVersion: null });
    expect(
      await errorCode(client.write({ path: "v.txt", content: "x", expectedVersion: null })),
    ).toBe("version_conflict");
    const second = await client.write({
      path: "v.txt",
      content: "2",
      expectedVersion: first.version,
    });
    expect(
      await errorCode(
        client.write({ path: "v.txt", content: "3", expectedVersion: first.version }),
      ),
    ).toBe("version_conflict");
    expect((await client.read({ path: "v.txt" })).content).toBe("2");
    expect(
      await errorCode(client.upload({ path: "v.txt", body: "4", expectedVersion: first.version })),
    ).toBe("version_conflict");
    await client.upload({ path: "v.txt", body: "4", expectedVersion: second.version });
    expect((await client.read({ path: "v.txt" })).content).toBe("4");
    await client.remove({ path: "v.txt" });
  });

  it("keeps a file's mode across rewrites and sets one when asked", async () => {
    await boxd.client.write({ path: "run.sh", content: "#!/bin/sh\n", mode: 0o755 });
    await boxd.client.write({ path: "run.sh", content: "#!/bin/sh\necho\n" });
    expect((await boxd.client.stat({ path: "run.sh" })).entry.mode).toBe(0o755);
    await boxd.client.remove({ path: "run.sh" });
  });

  it("reads bytes and ranges exactly, and refuses whole reads past the inline limit", async () => {
    const bytes = randomBytes(9 * 1024 * 1024);
    await writeFile(join(boxd.root, "big.bin"), bytes);
    const refused = boxd.client.read({ path: "big.bin" });
    await expect(refused).rejects.toMatchObject({ code: "too_large" });
    await expect(refused).rejects.toThrow(
      /ranges \(offset and length\) or use the download stream/,
    );

    const range = await boxd.client.read({
      path: "big.bin",
      offset: 1000,
      length: 4096,
      encoding: "base64",
    });
    expect(Buffer.from(range.content, "base64").equals(bytes.subarray(1000, 5096))).toBe(true);
    expect(range).toMatchObject({ offset: 1000, length: 4096, size: bytes.byteLength, eof: false });
    expect(range.version).toBeUndefined();

    const tail = await boxd.client.read({ path: "big.bin", offset: bytes.byteLength - 10 });
    expect(tail).toMatchObject({ length: 10, eof: true });
    await boxd.client.remove({ path: "big.bin" });
  });

  it("streams large uploads and downloads with bounded memory", async () => {
    const size = 96 * 1024 * 1024;
    const chunk = randomBytes(1024 * 1024);
    const hash = createHash("sha256");
    async function* body() {
      for (let sent = 0; sent < size; sent += chunk.byteLength) {
        hash.update(chunk);
        yield chunk;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const before = peakRssBytes(boxd);
    const uploaded = await boxd.client.upload({
      path: "stream/large.bin",
      body: body(),
      createParents: true,
    });
    expect(uploaded).toEqual({ path: "stream/large.bin", version: hash.digest("hex"), size });

    const download = await boxd.client.download({ path: "stream/large.bin" });
    expect(download.size).toBe(size);
    const check = createHash("sha256");
    let received = 0;
    for await (const part of download.body) {
      check.update(part);
      received += part.byteLength;
    }
    expect(received).toBe(size);
    expect(check.digest("hex")).toBe(uploaded.version);
    // 96 MiB went through each way; boxd's peak memory grew by far less than that.
    expect(peakRssBytes(boxd) - before).toBeLessThan(48 * 1024 * 1024);
    await boxd.client.remove({ path: "stream", recursive: true });
  });

  it("answers typed errors for missing paths and wrong types", async () => {
    await boxd.client.mkdir({ path: "folder" });
    expect(await errorCode(boxd.client.read({ path: "missing.txt" }))).toBe("not_found");
    expect(await errorCode(boxd.client.read({ path: "folder" }))).toBe("wrong_type");
    expect(await errorCode(boxd.client.list({ path: "missing" }))).toBe("not_found");
    expect(await errorCode(boxd.client.mkdir({ path: "folder" }))).toBe("already_exists");
    expect(await errorCode(boxd.client.write({ path: "folder", content: "" }))).toBe("wrong_type");
    expect(await errorCode(boxd.client.write({ path: "no/parent.txt", content: "" }))).toBe(
      "not_found",
    );
    expect(await errorCode(boxd.client.remove({ path: "" }))).toBe("invalid_name");
    expect(await errorCode(boxd.client.write({ path: ".berth-tmp-x", content: "" }))).toBe(
      "invalid_name",
    );
    await boxd.client.remove({ path: "folder" });
  });
});

/** The daemon's peak resident memory so far (VmHWM), from /proc. */
function peakRssBytes(process: BoxdProcess): number {
  const status = readFileSync(`/proc/${String(process.child.pid)}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}
