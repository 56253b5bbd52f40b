import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deriveBoxToken, tokensMatch } from "./boxToken.ts";

describe("deriveBoxToken", () => {
  it("is HMAC-SHA256(secret, instanceId) in hex", () => {
    const token = deriveBoxToken({ secret: "s3cret", instanceId: "box-1" });
    expect(token).toBe(createHmac("sha256", "s3cret").update("box-1").digest("hex"));
    expect(token).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is stable, and differs per instance and per secret", () => {
    const base = deriveBoxToken({ secret: "a", instanceId: "i" });
    expect(deriveBoxToken({ secret: "a", instanceId: "i" })).toBe(base);
    expect(deriveBoxToken({ secret: "a", instanceId: "j" })).not.toBe(base);
    expect(deriveBoxToken({ secret: "b", instanceId: "i" })).not.toBe(base);
  });

  it("refuses an empty secret or instance id", () => {
    expect(() => deriveBoxToken({ secret: "", instanceId: "i" })).toThrow(/secret is empty/);
    expect(() => deriveBoxToken({ secret: "a", instanceId: "" })).toThrow(/instanceId is empty/);
  });
});

describe("tokensMatch", () => {
  it("matches equal tokens and refuses any other, of any length", () => {
    const token = deriveBoxToken({ secret: "a", instanceId: "i" });
    expect(tokensMatch(token, token)).toBe(true);
    expect(tokensMatch(`${token}x`, token)).toBe(false);
    expect(tokensMatch("", token)).toBe(false);
    expect(tokensMatch(token.slice(0, -1), token)).toBe(false);
  });
});
