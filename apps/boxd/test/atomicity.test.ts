import { createHash, randomBytes } from "node:crypto";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorCode, startBoxd, tempFolder } from "./boxdProcess.ts";

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
const MiB = 1024 * 1024;

describe("atomic writes", () => {
  it.each([
    ["a quarter of the way", 0.25],
    ["right after the last byte", 1],
  ])(
    "leave the old file or the new one when boxd is SIGKILLed %s into an upload",
    async (_when, fraction) => {
      const root = await tempFolder();
      const old = randomBytes(4 * MiB);
      await writeFile(join(root, "data.bin"), old);
      const boxd = await startBoxd({ root });

      const size = 48 * MiB;
      const chunk = randomBytes(MiB);
      const fresh = Buffer.concat(Array.from({ length: size / MiB }, () => chunk));
      async function* body() {
        for (let sent = 0; sent < size; sent += MiB) {
          if (sent >= size * fraction) await boxd.kill();
          yield chunk;
          await new Promise((resolve) => setImmediate(resolve));
        }
        if (fraction === 1) await boxd.kill();
      }
      const upload = boxd.client.upload({ path: "data.bin", body: body() });
      const outcome = await upload.then(
        () => "completed",
        (error: unknown) => (error as { code: string }).code,
      );
      expect(["completed", "unavailable"]).toContain(outcome);

      if (fraction < 1) {
        // The kill really came mid-write: its temp file is still there.
        expect((await readdir(root)).some((name) => name.startsWith(".berth-tmp-"))).toBe(true);
      }
      const onDisk = sha256(await readFile(join(root, "data.bin")));
      expect([sha256(old), sha256(fresh)]).toContain(onDisk);

      // The next boxd hides the killed write's temp file at once and sweeps it shortly after.
      const next = await startBoxd({ root });
      try {
        expect((await next.client.list({ path: "" })).entries.map((entry) => entry.name)).toEqual([
          "data.bin",
        ]);
        const deadline = Date.now() + 10_000;
        while ((await readdir(root)).length > 1 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(await readdir(root)).toEqual(["data.bin"]);
        expect((await next.client.read({ path: "data.bin", offset: 0, length: 16 })).size).toBe(
          onDisk === sha256(old) ? old.byteLength : size,
        );
      } finally {
        await next.stop();
      }
    },
  );

  it("a refused write leaves no temp file behind", async () => {
    const boxd = await startBoxd();
    try {
      await boxd.client.write({ path: "f.txt", content: "v1" });
      const stale = "0".repeat(64);
      expect(
        await errorCode(boxd.client.upload({ path: "f.txt", body: "v2", expectedVersion: stale })),
      ).toBe("version_conflict");
      expect(await readdir(boxd.root)).toEqual(["f.txt"]);
      expect(await readFile(join(boxd.root, "f.txt"), "utf8")).toBe("v1");
    } finally {
      await boxd.stop();
    }
  });
});
