import { describe, expect, it } from "vitest";
import { Base64Error, base64ErrorOffset, decodeGoBase64 } from "./goBase64.ts";

describe("base64 as Go's encoding/json decodes a []byte (issue 35)", () => {
  it("accepts padded StdEncoding, skips newlines, and ignores non-zero trailing bits", () => {
    expect(decodeGoBase64("YWRtaW4=").toString()).toBe("admin");
    expect(decodeGoBase64("YWJj\nZGVm\r\n").toString()).toBe("abcdef");
    expect(decodeGoBase64("YR==").toString()).toBe("a");
    expect(decodeGoBase64("").length).toBe(0);
  });

  it("reports CorruptInputError's offsets: observed ones (admin, billy, wombat → 4; <foo> → 0) and each decodeQuantum branch", () => {
    const cases: [string, number][] = [
      ["admin", 4], // input ends one symbol into a quantum: si - j
      ["billy", 4],
      ["wombat", 4],
      ["<foo>", 0], // not in the alphabet
      ["abc", 0],
      ["abcd=", 4], // padding at the start of a quantum
      ["YQ=", 3], // "==" expected, input ended: len(src)
      ["YQ=x", 2], // "==" expected, another symbol: si - 1
      ["YQ==YQ==", 4], // trailing garbage after the padding
      ["YWJ\nj=", 5],
    ];
    for (const [text, offset] of cases)
      expect([text, base64ErrorOffset(text)]).toEqual([text, offset]);
    expect(() => decodeGoBase64("admin")).toThrow(new Base64Error(4));
    expect(() => decodeGoBase64("admin")).toThrow("illegal base64 data at input byte 4");
  });
});
