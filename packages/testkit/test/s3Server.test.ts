import { describe, expect, it } from "vitest";
import { startS3Server } from "../src/index.ts";

// s3rver serves unsigned requests as anonymous ones: plain fetch is enough to see it serve.
describe("startS3Server", () => {
  it("serves a bucket on loopback, keeps objects across a stop and restart, answers aborts, and is gone after dispose", async () => {
    let endpoint = "";
    {
      await using s3 = await startS3Server({ bucket: "kit-bucket" });
      endpoint = s3.endpoint;
      expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const put = await fetch(`${endpoint}/kit-bucket/a/b.txt`, { method: "PUT", body: "hello" });
      expect(put.status).toBe(200);

      await s3.stop();
      await expect(fetch(`${endpoint}/kit-bucket/a/b.txt`)).rejects.toThrow();
      await s3.restart();
      const got = await fetch(`${endpoint}/kit-bucket/a/b.txt`);
      expect(await got.text()).toBe("hello");
      const listing = await fetch(`${endpoint}/kit-bucket`);
      expect(await listing.text()).toContain("<Key>a/b.txt</Key>");

      const abort = await fetch(`${endpoint}/kit-bucket/a/c.bin?uploadId=u-1`, {
        method: "DELETE",
      });
      expect(abort.status).toBe(204);
      expect(s3.abortedUploads()).toEqual([
        { bucket: "kit-bucket", key: "a/c.bin", uploadId: "u-1" },
      ]);
      // An object's DELETE (no uploadId) is still s3rver's own.
      expect((await fetch(`${endpoint}/kit-bucket/a/b.txt`, { method: "DELETE" })).status).toBe(
        204,
      );
      expect((await fetch(`${endpoint}/kit-bucket/a/b.txt`)).status).toBe(404);
    }
    await expect(fetch(`${endpoint}/kit-bucket`)).rejects.toThrow();
  });

  it("cuts the next object reads after the bytes asked, then serves whole again", async () => {
    await using s3 = await startS3Server();
    await fetch(`${s3.endpoint}/${s3.bucket}/blob`, { method: "PUT", body: "x".repeat(100_000) });

    s3.dropReads(1, 1000);
    const cut = await fetch(`${s3.endpoint}/${s3.bucket}/blob`);
    expect(cut.headers.get("content-length")).toBe("100000");
    await expect(cut.text()).rejects.toThrow();
    expect((await (await fetch(`${s3.endpoint}/${s3.bucket}/blob`)).text()).length).toBe(100_000);
  });
});
