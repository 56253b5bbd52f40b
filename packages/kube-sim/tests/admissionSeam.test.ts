import { describe, expect, it } from "vitest";
import type { AdmissionRequest } from "../src/index.ts";
import { KubeStatusError } from "../src/index.ts";
import { SANDBOX_PATH, metadataOf, sandbox, simFixture } from "./harness.ts";

describe("the write pipeline: schema, admission, storage (§4.1, §4.5)", () => {
  it("§4.1 schema validation runs before admission: a schema error wins over a denial; hooks see defaulted objects", async () => {
    const seen: AdmissionRequest[] = [];
    await using f = await simFixture({
      admission: [
        (request) => {
          seen.push(request);
          if (metadataOf(request.object ?? request.oldObject).name === "denied") {
            throw new KubeStatusError("Invalid", "denied by a test hook", {});
          }
          return { warnings: ["seen by a test hook"] };
        },
      ],
    });
    const schemaFirst = await f.http(SANDBOX_PATH, {
      method: "POST",
      body: { ...sandbox("denied", { operatingMode: "Paused" }) },
    });
    expect(schemaFirst.status).toBe(422);
    expect(schemaFirst.body.message).toContain("spec.operatingMode: Unsupported value");
    expect(seen).toHaveLength(0);
    const denied = await f.http(SANDBOX_PATH, { method: "POST", body: sandbox("denied") });
    expect(denied.body.message).toBe("denied by a test hook");
    expect((await f.http(`${SANDBOX_PATH}/denied`)).status).toBe(404);
    const allowed = await f.http(SANDBOX_PATH, { method: "POST", body: sandbox("ok") });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get("warning")).toBe('299 - "seen by a test hook"');
    const create = seen.at(-1);
    expect(create?.operation).toBe("CREATE");
    expect((create?.object?.spec as Record<string, unknown>).operatingMode).toBe("Running");
    await f.http(`${SANDBOX_PATH}/ok`, { method: "DELETE" });
    expect(seen.at(-1)?.operation).toBe("DELETE");
  });

  it("§4.1 dryRun=All runs every step but stores nothing and sends no event", async () => {
    await using f = await simFixture();
    const before = f.sim.store.currentRevision;
    const created = await f.http(`${SANDBOX_PATH}?dryRun=All`, {
      method: "POST",
      body: sandbox("sb1"),
    });
    expect(created.status).toBe(201);
    expect((created.body.spec as Record<string, unknown>).operatingMode).toBe("Running");
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(404);
    await f.http(SANDBOX_PATH, { method: "POST", body: sandbox("sb1") });
    const patched = await f.http(`${SANDBOX_PATH}/sb1?dryRun=All`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: { metadata: { labels: { a: "1" } } },
    });
    expect(metadataOf(patched.body).labels).toEqual({ a: "1" });
    const deleted = await f.http(`${SANDBOX_PATH}/sb1?dryRun=All`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    const stored = await f.http(`${SANDBOX_PATH}/sb1`);
    expect(metadataOf(stored.body).labels).toBeUndefined();
    expect(f.sim.store.currentRevision).toBe(before + 1);
    expect((await f.http(`${SANDBOX_PATH}/sb1?dryRun=Some`, { method: "DELETE" })).status).toBe(
      400,
    );
  });

  it("§4.4 a PUT whose body names another object is 400", async () => {
    await using f = await simFixture();
    const created = await f.http(SANDBOX_PATH, { method: "POST", body: sandbox("sb1") });
    const res = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PUT",
      body: { ...created.body, metadata: { ...metadataOf(created.body), name: "sb2" } },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "the name of the object (sb2) does not match the name on the URL (sb1)",
    );
  });
});
