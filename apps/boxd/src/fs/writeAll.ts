import type { FileHandle } from "node:fs/promises";

/** Writes the whole chunk: a single write(2) may write less than asked. */
export async function writeAll(file: FileHandle, chunk: Uint8Array): Promise<void> {
  let written = 0;
  while (written < chunk.byteLength) {
    const result = await file.write(chunk, written, chunk.byteLength - written);
    written += result.bytesWritten;
  }
}
