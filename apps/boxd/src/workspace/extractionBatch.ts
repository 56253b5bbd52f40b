import type { ThreadError } from "./threadErrors.ts";
import type { TreeOps } from "./treeOps.ts";

/**
 * TreeOps calls as they cross to the extraction thread: one flat array of codes and operands
 * (one structured-clone object per batch, not one per call) and one buffer of file bytes,
 * transferred, not copied. `write` operands are an offset and a length in that buffer.
 */
export const MKDIR = 1;
export const SYMLINK = 2;
export const OPEN = 3;
export const WRITE = 4;
export const CLOSE = 5;

export type BatchCode = number | string;

/** What the extraction thread is sent. */
export type ToExtractionThread =
  | { readonly kind: "begin"; readonly stagingFd: number }
  | { readonly kind: "batch"; readonly codes: BatchCode[]; readonly bytes: ArrayBuffer }
  | { readonly kind: "end" };

/** What it answers: each batch's buffer comes back, to be filled again. */
export type FromExtractionThread =
  | { readonly kind: "applied"; readonly bytes: ArrayBuffer; readonly digests: string[] }
  | { readonly kind: "failed"; readonly bytes: ArrayBuffer; readonly error: ThreadError }
  | { readonly kind: "ended" };

/** Replays one batch, in order; answers the sha256 of each file it closed, in order. */
export function applyBatch(ops: TreeOps, codes: readonly BatchCode[], bytes: Buffer): string[] {
  const digests: string[] = [];
  let at = 0;
  const next = () => codes[at++];
  const number = () => Number(next());
  const text = () => String(next());
  while (at < codes.length) {
    const code = number();
    switch (code) {
      case MKDIR:
        ops.mkdir(text(), number());
        break;
      case SYMLINK:
        ops.symlink(text(), text());
        break;
      case OPEN:
        ops.openFile(text(), number());
        break;
      case WRITE: {
        const offset = number();
        ops.write(bytes.subarray(offset, offset + number()));
        break;
      }
      case CLOSE: {
        const mode = number();
        // "" when the entry has no time; any number of ms, before 1970 too, otherwise.
        const mtime = next();
        digests.push(ops.closeFile(mode, mtime === "" ? undefined : new Date(Number(mtime))));
        break;
      }
      default:
        throw new Error(`unknown extraction code ${String(code)}`);
    }
  }
  return digests;
}
