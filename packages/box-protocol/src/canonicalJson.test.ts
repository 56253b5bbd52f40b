import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalFingerprint,
  canonicalJson,
  CanonicalJsonError,
  compareUtf16,
} from "./canonicalJson.ts";

describe("canonicalJson", () => {
  it("sorts keys at every depth and writes no whitespace", () => {
    const value = { b: 1, a: { d: [3, { z: true, y: null }], c: "x" } };
    expect(canonicalJson(value)).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  it("gives the same text whatever order the keys were inserted in", () => {
    expect(canonicalJson({ x: 1, y: { p: 1, q: 2 } })).toBe(
      canonicalJson({ y: { q: 2, p: 1 }, x: 1 }),
    );
  });

  it("orders Unicode keys by UTF-16 code unit, not by code point or locale", () => {
    // U+FF21 (a BMP letter) sorts after U+1F600 (an astral emoji, surrogates D83D DE00) by
    // UTF-16 code unit, though its code point is lower; "é" sorts after "z"; "B" before "a".
    const value = { Ａ: 1, "😀": 2, é: 3, z: 4, a: 5, B: 6 };
    expect(Object.keys(JSON.parse(canonicalJson(value)) as object)).toEqual([
      "B",
      "a",
      "z",
      "é",
      "😀",
      "Ａ",
    ]);
    expect(compareUtf16("😀", "Ａ")).toBe(-1);
  });

  it("drops undefined members, keeps array order, and writes undefined items as null", () => {
    expect(canonicalJson({ kept: 1, dropped: undefined, list: [3, 1, undefined, 2] })).toBe(
      '{"kept":1,"list":[3,1,null,2]}',
    );
    expect(canonicalJson([{ b: undefined }, []])).toBe("[{},[]]");
  });

  it("escapes strings as JSON does", () => {
    expect(canonicalJson({ "new\nline": 'quote " and \\ and \u0001' })).toBe(
      '{"new\\nline":"quote \\" and \\\\ and \\u0001"}',
    );
  });

  it("refuses what JSON cannot carry exactly", () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ deep: [Number.POSITIVE_INFINITY] })).toThrow(
      /deep\[0\] is Infinity/,
    );
    expect(() => canonicalJson({ when: new Date(0) } as never)).toThrow(/Date/);
    expect(() => canonicalJson({ a: { b: [1, { c: Number.NaN }] } })).toThrow(
      "canonical JSON: .a.b[1].c is NaN",
    );
    expect(() => canonicalJson(undefined)).toThrow(CanonicalJsonError);
  });
});

describe("canonicalFingerprint", () => {
  it("is sha256:<hex> of the canonical text", () => {
    const value = { b: [1, 2], a: "x" };
    const hex = createHash("sha256").update('{"a":"x","b":[1,2]}', "utf8").digest("hex");
    expect(canonicalFingerprint(value)).toBe(`sha256:${hex}`);
    expect(canonicalFingerprint(value)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("ignores key order at depth and undefined members; array order counts", () => {
    const built = { spec: { image: "i", resources: { limits: { cpu: "1", memory: "1Gi" } } } };
    const rebuilt = {
      spec: { resources: { limits: { memory: "1Gi", cpu: "1" } }, runtime: undefined, image: "i" },
    };
    expect(canonicalFingerprint(rebuilt)).toBe(canonicalFingerprint(built));
    expect(canonicalFingerprint({ args: ["a", "b"] })).not.toBe(
      canonicalFingerprint({ args: ["b", "a"] }),
    );
  });
});
