import { describe, expect, it } from "vitest";
import { sessionMatches } from "./sessionMatch.ts";

const row = {
  id: "5a1e2c3d-0000-4000-8000-000000000001",
  title: "Live Session",
  state: "warm",
} as const;

describe("the overview's filter", () => {
  it("matches everything when empty", () => {
    expect(sessionMatches(row, { search: "", state: "" })).toBe(true);
    expect(sessionMatches(row, { search: "   ", state: "" })).toBe(true);
  });

  it("matches the title anywhere, ignoring case and surrounding spaces", () => {
    expect(sessionMatches(row, { search: " live ", state: "" })).toBe(true);
    expect(sessionMatches(row, { search: "SESS", state: "" })).toBe(true);
    expect(sessionMatches(row, { search: "idle", state: "" })).toBe(false);
  });

  it("matches the id by its start only", () => {
    expect(sessionMatches(row, { search: "5a1e2c", state: "" })).toBe(true);
    expect(sessionMatches(row, { search: "5A1E2C", state: "" })).toBe(true);
    expect(sessionMatches(row, { search: "0000-4000", state: "" })).toBe(false);
  });

  it("takes markup and quotes in the search as text", () => {
    const hostile = { ...row, title: `a"]</style><b>` };
    expect(sessionMatches(hostile, { search: `"]</style>`, state: "" })).toBe(true);
    expect(sessionMatches(row, { search: `live"]</style><b id="injected">x`, state: "" })).toBe(
      false,
    );
  });

  it("requires the state when one is chosen, with the search", () => {
    expect(sessionMatches(row, { search: "", state: "warm" })).toBe(true);
    expect(sessionMatches(row, { search: "", state: "cold" })).toBe(false);
    expect(sessionMatches(row, { search: "live", state: "cold" })).toBe(false);
  });
});
