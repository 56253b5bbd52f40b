// A workspace's disk limit (issue 32), where no filesystem quota gives one: boxd refuses each
// write that would pass BOXD_DISK_BYTES, and once a command has passed it, every write until
// files are removed; a refused write loses nothing of the workspace.
import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pack } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startBoxd, tempFolder, type BoxdProcess } from "./boxdProcess.ts";

const MiB = 1024 * 1024;
const LIMIT = 4 * MiB;
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

let boxd: BoxdProcess;

beforeAll(async () => {
  boxd = await startBoxd({ root: await tempFolder(), env: { BOXD_DISK_BYTES: String(LIMIT) } });
});

afterAll(async () => {
  // Killed, not stopped: a refused upload's connection would hold a stop for its 5 s grace.
  await boxd.kill();
});

/** A body of `count` random chunks, made as the upload reads them (the size is not told). */
function chunks(count: number, size: number): AsyncIterable<Uint8Array> {
  return Readable.from(
    (function* () {
      for (let sent = 0; sent < count; sent += 1) yield randomBytes(size);
    })(),
  );
}

function sh(script: string) {
  return boxd.client.exec({ argv: ["sh", "-c", script] });
}

describe("a workspace's disk limit", () => {
  it("refuses an inline write or an upload that would pass it, and keeps the old file", async () => {
    const old = randomBytes(MiB);
    await boxd.client.write({
      path: "kept.bin",
      content: old.toString("base64"),
      encoding: "base64",
    });
    const refusal = boxd.client.write({
      path: "new/too-big.bin",
      content: randomBytes(4 * MiB).toString("base64"),
      encoding: "base64",
      createParents: true,
    });
    expect(await errorCode(refusal)).toBe("disk_full");
    await expect(refusal).rejects.toThrow(/past its disk limit of 4\.0 MiB/);
    // Streamed in without a size: refused at the chunk that would pass the limit.
    expect(await errorCode(boxd.client.upload({ path: "kept.bin", body: chunks(8, MiB) }))).toBe(
      "disk_full",
    );

    expect(sha256(await readFile(join(boxd.root, "kept.bin")))).toBe(sha256(old));
    // No temp file, no folder made for the refused write.
    expect(await readdir(boxd.root)).toEqual(["kept.bin"]);
    // What fits is written.
    await boxd.client.upload({ path: "fits.bin", body: chunks(1, MiB) });
    expect((await readdir(boxd.root)).sort()).toEqual(["fits.bin", "kept.bin"]);
  });

  it("refuses every write once a command took the workspace past it, until files are removed", async () => {
    const before = sha256(await readFile(join(boxd.root, "kept.bin")));
    const filled = await sh("head -c 5242880 /dev/urandom > filler.bin && echo done");
    expect(filled.stdout.trim()).toBe("done");
    // The command's reply came after boxd was told. A write waits for that measurement only
    // where du is quick (100 ms); on a loaded machine it is refused once the measurement lands,
    // which the watch schedules right after the command.
    await expect
      .poll(
        () =>
          errorCode(boxd.client.write({ path: "small.txt", content: "x" })).catch(() => "written"),
        { timeout: 30_000 },
      )
      .toBe("disk_full");
    expect(await errorCode(boxd.client.write({ path: "kept.bin", content: "x" }))).toBe(
      "disk_full",
    );
    expect(sha256(await readFile(join(boxd.root, "kept.bin")))).toBe(before);

    expect((await sh("rm filler.bin")).exitCode).toBe(0);
    await boxd.client.write({ path: "small.txt", content: "x" });
    expect(await readFile(join(boxd.root, "small.txt"), "utf8")).toBe("x");
  });

  it("refuses an archive whose files would pass it, leaving the workspace empty", async () => {
    const target = await startBoxd({
      root: await tempFolder(),
      env: { BOXD_DISK_BYTES: String(LIMIT) },
    });
    try {
      const tar = pack();
      for (const name of ["a.bin", "b.bin", "c.bin", "d.bin", "e.bin"])
        tar.entry({ name, size: MiB }, randomBytes(MiB));
      tar.finalize();
      const refused = target.client.hydrate({ body: Readable.from(tar) });
      expect(await errorCode(refused)).toBe("disk_full");
      expect(await readdir(target.root)).toEqual([]);
    } finally {
      await target.stop();
    }
  });
});
