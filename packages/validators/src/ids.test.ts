import { describe, expect, it } from "vitest";
import { idSchema, workspaceSlugSchema } from "./ids.ts";

describe("workspaceSlugSchema", () => {
  it.each(["acme", "acme-labs", "a1b2c3"])("accepts %s", (slug) => {
    expect(workspaceSlugSchema.parse(slug)).toBe(slug);
  });

  it.each([
    ["ab", "at least 3"],
    ["Acme", "lowercase"],
    ["-acme", "lowercase"],
    ["acme--labs", "lowercase"],
    ["a".repeat(41), "at most 40"],
  ])("refuses %s with a message saying why", (slug, reason) => {
    const result = workspaceSlugSchema.safeParse(slug);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain(reason);
  });
});

describe("idSchema", () => {
  it("accepts a Postgres gen_random_uuid() value and refuses anything else", () => {
    expect(idSchema.safeParse("3f0c6f5e-6a8e-4d8e-9f6b-2f1f5f0b9a11").success).toBe(true);
    expect(idSchema.safeParse("not-a-uuid").error?.issues[0]?.message).toBe("must be a UUID");
  });
});
