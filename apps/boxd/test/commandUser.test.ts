import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandLine, execFailureOf } from "../src/commandUser.ts";

const root = process.getuid?.() === 0;

describe("commandLine", () => {
  it("runs argv as it is without a user", () => {
    expect(commandLine(undefined, ["git", "status"])).toEqual(["git", "status"]);
  });

  it.runIf(root || process.env.CI === "true")(
    "runs argv as the user: its uid and gid, no groups, no-new-privs, an empty bounding set, its process limit",
    () => {
      const [file, ...args] = commandLine({ uid: 2_199_001, gid: 2_199_001, processes: 77 }, [
        "sh",
        "-c",
        "id -u; id -g; id -G; grep -E '^(CapBnd|NoNewPrivs)' /proc/self/status; grep 'Max processes' /proc/self/limits",
      ]);
      const lines = execFileSync(file, args, { encoding: "utf8" }).trim().split("\n");
      expect(lines[0]).toBe("2199001");
      expect(lines[1]).toBe("2199001");
      expect(lines[2]).toBe("2199001");
      expect(lines[3]).toMatch(/CapBnd:\s+0+$/);
      expect(lines[4]).toMatch(/NoNewPrivs:\s+1$/);
      expect(lines[5]).toMatch(/^Max processes\s+77\s+77\s/);
    },
  );
});

describe("execFailureOf", () => {
  it("reads setpriv's failure to exec as the errno a spawn would carry", () => {
    expect(
      execFailureOf("nope", {
        code: 127,
        stderr: "setpriv: failed to execute nope: No such file or directory\n",
      })?.code,
    ).toBe("ENOENT");
    expect(
      execFailureOf("/workspace", {
        code: 126,
        stderr: "setpriv: failed to execute /workspace: Permission denied\n",
      })?.code,
    ).toBe("EACCES");
  });

  it("leaves a command that ran and failed alone", () => {
    expect(execFailureOf("sh", { code: 127, stderr: "sh: 1: x: not found\n" })).toBeUndefined();
    expect(
      execFailureOf("other", {
        code: 1,
        stderr: "setpriv: failed to execute other: No such file or directory\n",
      }),
    ).toBeUndefined();
  });
});
