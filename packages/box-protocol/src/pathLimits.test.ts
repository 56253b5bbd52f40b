import { describe, expect, it } from "vitest";
import { PATH_LIMITS, pathLimitProblem } from "./pathLimits.ts";
import { execRequestSchema } from "./schemas/exec.ts";
import { mkdirRequestSchema } from "./schemas/files.ts";

const issuesOf = (result: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.error?.issues.map((issue) => [issue.path.join("."), issue.message]);

describe("pathLimitProblem", () => {
  it("accepts a path at each limit", () => {
    const name = "n".repeat(PATH_LIMITS.maxNameBytes);
    // 16 names of 255 bytes and their 15 slashes: 4,095 bytes.
    expect(pathLimitProblem(Array(16).fill(name).join("/"))).toBeUndefined();
    expect(pathLimitProblem(Array(256).fill("a").join("/"))).toBeUndefined();
    expect(pathLimitProblem("")).toBeUndefined();
  });

  it("names the limit a path passes, counting UTF-8 bytes", () => {
    expect(pathLimitProblem("é".repeat(2049))).toContain("at most 4096 bytes (Linux's PATH_MAX)");
    expect(pathLimitProblem(Array(2047).fill("a").join("/"))).toBe(
      "is 2047 names deep; a path is at most 256 names deep",
    );
    expect(pathLimitProblem(`ok/${"é".repeat(128)}`)).toContain(
      "a name is at most 255 bytes (Linux's NAME_MAX)",
    );
    // "." and empty components name nothing: they count toward the bytes only.
    expect(pathLimitProblem(Array(300).fill(".").join("/"))).toBeUndefined();
  });
});

describe("request schemas", () => {
  it("refuse a path past the limits or with NUL, naming the field", () => {
    expect(issuesOf(mkdirRequestSchema.safeParse({ path: "a\u0000b" }))).toEqual([
      ["path", "must not contain a NUL byte (U+0000)"],
    ]);
    expect(issuesOf(mkdirRequestSchema.safeParse({ path: "a/".repeat(300) }))).toEqual([
      ["path", "is 300 names deep; a path is at most 256 names deep"],
    ]);
  });

  it("refuse an empty program, and NUL anywhere in argv or env", () => {
    expect(issuesOf(execRequestSchema.safeParse({ argv: [""] }))).toEqual([
      ["argv.0", "argv[0] must not be empty: it names the program to run"],
    ]);
    expect(
      issuesOf(
        execRequestSchema.safeParse({
          argv: ["echo", "a\u0000"],
          env: { "K\u0000": "v", V: "\u0000", "A=B": "x", "": "y" },
        }),
      ),
    ).toEqual([
      ["argv.1", "must not contain a NUL byte (U+0000)"],
      ["env.V", "must not contain a NUL byte (U+0000)"],
      ["env.K\u0000", "a variable's name must not contain a NUL byte (U+0000)"],
      ["env.A=B", `a variable's name must not contain "="`],
      ["env.", "a variable's name must not be empty"],
    ]);
  });
});
