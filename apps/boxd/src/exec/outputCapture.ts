/** Keeps the first `limit` bytes of a stream and notes whether more came. */
export class OutputCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (chunk.byteLength > room) this.truncated = true;
    if (room <= 0) return;
    const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.byteLength;
  }

  text(encoding: "utf8" | "base64"): string {
    return Buffer.concat(this.chunks).toString(encoding);
  }
}
