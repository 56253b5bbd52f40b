import { describe, expect, it } from "vitest";
import { instanceIdFor, isInstanceId } from "./instanceIds.ts";

describe("instanceIdFor", () => {
  it("keeps a plain allocation id readable", () => {
    expect(instanceIdFor("alloc-1")).toBe("box-alloc-1");
    expect(instanceIdFor("3f2b_A-9")).toBe("box-3f2b_A-9");
  });

  it("hashes any other allocation id into one safe folder name, the same every time", () => {
    for (const allocationId of ["../../etc", "a/b", "alloc:1", "x".repeat(65), "é", ".", "a b"]) {
      const instanceId = instanceIdFor(allocationId);
      expect(instanceId).toMatch(/^box\.[0-9a-f]{32}$/);
      expect(instanceIdFor(allocationId)).toBe(instanceId);
      expect(isInstanceId(instanceId)).toBe(true);
    }
    expect(instanceIdFor("a/b")).not.toBe(instanceIdFor("a:b"));
  });

  it("recognizes only ids it could have made", () => {
    for (const id of ["box-", "box-a/b", "box-..", "../box-a", "box.abc", "alloc-1", "box-a\0"]) {
      expect(isInstanceId(id)).toBe(false);
    }
  });
});
