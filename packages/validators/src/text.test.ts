import { describe, expect, it } from "vitest";
import { displayNameSchema, emailSchema, signUpSchema } from "./identity.ts";
import { NUL_REFUSAL, textSchema } from "./text.ts";

describe("textSchema", () => {
  it("accepts any text but NUL, and keeps the checks chained after it", () => {
    expect(textSchema.parse("tabs\tnewlines\n and ünïcødé")).toBe("tabs\tnewlines\n and ünïcødé");
    expect(textSchema.safeParse("a\u0000b").error?.issues[0]?.message).toBe(NUL_REFUSAL);
    expect(textSchema.max(3).safeParse("abcd").success).toBe(false);
  });
});

describe("what people type", () => {
  it.each([
    ["a display name", displayNameSchema, "Ada\u0000"],
    ["an email address", emailSchema, "ada\u0000@example.test"],
  ])("refuses NUL in %s", (_label, schema, value) => {
    expect(schema.safeParse(value).success).toBe(false);
  });

  it("names the field a NUL is in", () => {
    const result = signUpSchema.safeParse({
      name: "\u0000",
      email: "ada@example.test",
      password: "long enough",
    });
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [["name"], NUL_REFUSAL],
    ]);
  });
});
