import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");
const self = "tooling/ci/test/repository.test.ts";

/** Every file a clone has: tracked plus untracked-but-not-ignored. */
function repositoryFiles(): string[] {
  const output = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  return output.split("\0").filter((file) => file !== "" && file !== self);
}

describe("the repository", () => {
  it("never reads the design folder beside the project: a user's clone does not have it", () => {
    // Built from parts so this file does not match itself.
    const needles = [["..", "shared", ""].join("/"), ["", "work", "shared"].join("/")];
    const offenders = repositoryFiles().filter((file) => {
      let text: string;
      try {
        text = readFileSync(join(root, file), "utf8");
      } catch {
        return false; // deleted in the work tree
      }
      return needles.some((needle) => text.includes(needle));
    });
    expect(offenders).toEqual([]);
  });

  it("commits no file larger than 2 MB", () => {
    const big = repositoryFiles().filter((file) => {
      try {
        return readFileSync(join(root, file)).byteLength > 2 * 1024 * 1024;
      } catch {
        return false;
      }
    });
    expect(big).toEqual([]);
  });
});
