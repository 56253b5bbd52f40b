/**
 * Base64 as the real server reads a `[]byte` field from JSON: Go's `encoding/json` decodes it with
 * `base64.StdEncoding` (padding required, `\r` and `\n` skipped, not strict about trailing bits).
 * Node's decoder accepts almost anything, so the offsets of Go's `CorruptInputError` ("illegal
 * base64 data at input byte N") are reproduced here by following Go's `decodeQuantum`.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PAD = "=";

const isNewline = (c: string | undefined): boolean => c === "\n" || c === "\r";

/** The `CorruptInputError` text of Go's encoding/base64. */
export class Base64Error extends Error {
  override readonly name = "Base64Error";

  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${String(offset)}`);
  }
}

/**
 * Where Go's `StdEncoding.DecodeString` would fail, or undefined when `text` decodes. The walk is
 * Go's `decodeQuantum`: four symbols at a time, newlines skipped, padding only at the end.
 */
export function base64ErrorOffset(text: string): number | undefined {
  let si = 0;
  while (si < text.length) {
    for (let j = 0; j < 4; j++) {
      if (si === text.length) {
        // Input ended inside a quantum: with padding required, that is corrupt (si - j).
        if (j === 0) return undefined;
        return si - j;
      }
      const c = text[si] ?? "";
      si++;
      if (ALPHABET.includes(c)) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) return si - 1;
      // Padding: "xx==" or "xxx=" only, then nothing but newlines.
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < text.length && isNewline(text[si])) si++;
        if (si === text.length) return text.length;
        if (text[si] !== PAD) return si - 1;
        si++;
      }
      while (si < text.length && isNewline(text[si])) si++;
      return si < text.length ? si : undefined;
    }
  }
  return undefined;
}

/** The bytes of a Go-valid base64 string; throws {@link Base64Error} where Go would. */
export function decodeGoBase64(text: string): Buffer {
  const offset = base64ErrorOffset(text);
  if (offset !== undefined) throw new Base64Error(offset);
  return Buffer.from(text.replace(/[\r\n]/g, ""), "base64");
}
