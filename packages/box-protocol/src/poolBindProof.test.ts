import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { poolBindProof } from "./poolBindProof.ts";

const key = "pool-key-for-tests-0123456789abcdef";

describe("poolBindProof", () => {
  it("is hex HMAC-SHA256 over bind:<podUid>, the same every time", () => {
    const proof = poolBindProof(key, "pod-1");
    expect(proof).toMatch(/^[0-9a-f]{64}$/);
    expect(poolBindProof(key, "pod-1")).toBe(proof);
    expect(proof).toBe(createHmac("sha256", key).update("bind:pod-1").digest("hex"));
  });

  it("differs per pod uid and per key", () => {
    const proof = poolBindProof(key, "pod-1");
    expect(poolBindProof(key, "pod-2")).not.toBe(proof);
    expect(poolBindProof(`${key}-other`, "pod-1")).not.toBe(proof);
  });

  it("is not the plain HMAC of the pod uid (the bind: prefix keeps uses apart)", () => {
    expect(poolBindProof(key, "pod-1")).not.toBe(
      createHmac("sha256", key).update("pod-1").digest("hex"),
    );
  });

  it("refuses an empty key or pod uid", () => {
    expect(() => poolBindProof("", "pod-1")).toThrow(/pool key is empty/);
    expect(() => poolBindProof(key, "")).toThrow(/pod uid is empty/);
  });
});
