import { describe, expect, it } from "vitest";
import { startS3Server } from "../src/index.ts";

// s3rver serves unsigned requests as anonymous ones: plain fetch is enough to see it serve.
describe("startS3Server", () => {
  it("serves a bucket on loopback, keeps objects across a stop and restart, and is gone after dispose", async () => {
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
    }
    await expect(fetch(`${endpoint}/kit-bucket`)).rejects.toThrow();
  });
});
