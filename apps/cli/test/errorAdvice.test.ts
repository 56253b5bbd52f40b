import { berthErrorCodes } from "@berth/api";
import { describe, expect, it } from "vitest";
import { adviceFor, errorAdvice } from "../src/errorAdvice.ts";

const scope = { url: "http://berth.test", sessionId: "s-1" };

describe("the CLI's advice for every code the server answers", () => {
  it("names each of the API's codes, and no other", () => {
    expect(Object.keys(errorAdvice).sort()).toEqual([...berthErrorCodes].sort());
  });

  it.each(berthErrorCodes)("%s: exits retry exactly when the server says so", (code) => {
    const retry = adviceFor({ trpcCode: "CONFLICT", berthCode: code, retryable: true }, scope);
    expect(retry.reason).toBe("retry");
    expect(retry.hint).toMatch(/again/);
    const final = adviceFor({ trpcCode: "CONFLICT", berthCode: code, retryable: false }, scope);
    expect(final.reason).not.toBe("retry");
    // Only a refusal for want of a role sends the user to an admin for one.
    expect(final.hint.includes("Ask a workspace admin")).toBe(final.reason === "forbidden");
  });

  it("follows the code, not the status: a path outside the workspace is bad input", () => {
    for (const code of ["outside_workspace", "permission_denied", "invalid_name"]) {
      const advice = adviceFor({ trpcCode: "FORBIDDEN", berthCode: code, retryable: false }, scope);
      expect(advice.reason, code).toBe("usage");
    }
    expect(
      adviceFor({ trpcCode: "FORBIDDEN", berthCode: "forbidden", retryable: false }, scope).reason,
    ).toBe("forbidden");
  });

  it("advises an unknown code (a newer server) by its tRPC status", () => {
    expect(
      adviceFor({ trpcCode: "NOT_FOUND", berthCode: "brand_new", retryable: false }, scope).reason,
    ).toBe("notFound");
    expect(
      adviceFor({ trpcCode: "I_AM_NEW", berthCode: undefined, retryable: false }, scope).reason,
    ).toBe("unexpected");
  });
});
