import { describe, expect, it } from "vitest";
import { BenchUsageError, chooseOptions, nonDefaultOptions, parseBenchArgs } from "./options.ts";

const stores = { store: ["filesystem", "s3"] } as const;

describe("parseBenchArgs", () => {
  it("reads an option written either way, and keeps names, --short and the harness's own settings apart", () => {
    expect(parseBenchArgs(["archives", "--store", "s3", "--short", "--results=/tmp/r"])).toEqual({
      names: ["archives"],
      short: true,
      root: undefined,
      results: "/tmp/r",
      options: { store: "s3" },
    });
    expect(parseBenchArgs(["--store=s3", "archives"]).options).toEqual({ store: "s3" });
  });

  it("refuses an option without a value, or given twice", () => {
    expect(() => parseBenchArgs(["--store"])).toThrow(BenchUsageError);
    expect(() => parseBenchArgs(["--store", "--short"])).toThrow(BenchUsageError);
    expect(() => parseBenchArgs(["--store=s3", "--store", "s3"])).toThrow(BenchUsageError);
  });
});

describe("chooseOptions", () => {
  it("fills in the first value as the default, and refuses what the benchmark does not declare", () => {
    expect(chooseOptions("archives", stores, {})).toEqual({ store: "filesystem" });
    expect(chooseOptions("archives", stores, { store: "s3" })).toEqual({ store: "s3" });
    expect(() => chooseOptions("archives", stores, { store: "nfs" })).toThrow(BenchUsageError);
    expect(() => chooseOptions("lease", {}, { store: "s3" })).toThrow(/lease/);
  });

  it("names only the options that are not their defaults", () => {
    expect(nonDefaultOptions(stores, { store: "filesystem" })).toEqual([]);
    expect(nonDefaultOptions(stores, { store: "s3" })).toEqual([["store", "s3"]]);
  });
});
