import type { TerminalEvent } from "@berth/box-protocol";

interface Chunk {
  readonly seq: number;
  readonly data: string;
  readonly bytes: number;
  readonly cols: number;
  readonly rows: number;
}

/** The terminal's size when a chunk was written. */
export interface ChunkSize {
  readonly cols: number;
  readonly rows: number;
}

/**
 * A terminal's recent output, numbered 1, 2, 3… and bounded in bytes: the oldest chunks go
 * first. A client that reconnects with the last number it saw gets exactly the chunks after
 * it, preceded by a `gap` event when some of those were already dropped.
 */
export class ReplayBuffer {
  private chunks: Chunk[] = [];
  private bytes = 0;
  private nextSeq = 1;

  constructor(private readonly maxBytes: number) {}

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  append(data: string, size: ChunkSize): TerminalEvent {
    const chunk = { seq: this.nextSeq, data, bytes: Buffer.byteLength(data, "utf8"), ...size };
    this.nextSeq += 1;
    this.chunks.push(chunk);
    this.bytes += chunk.bytes;
    let drop = 0;
    // Always keep the newest chunk, even one larger than the whole budget.
    while (this.bytes > this.maxBytes && drop < this.chunks.length - 1) {
      this.bytes -= this.chunks[drop]?.bytes ?? 0;
      drop += 1;
    }
    if (drop > 0) this.chunks = this.chunks.slice(drop);
    return outputEvent(chunk);
  }

  /** Everything after `since`, with a gap event first when part of it is gone. */
  since(since: number): TerminalEvent[] {
    if (since >= this.lastSeq) return [];
    const oldest = this.chunks[0]?.seq ?? this.nextSeq;
    const events: TerminalEvent[] = [];
    if (since + 1 < oldest) events.push({ type: "gap", fromSeq: since + 1, toSeq: oldest - 1 });
    for (const chunk of this.chunks) {
      if (chunk.seq > since) events.push(outputEvent(chunk));
    }
    return events;
  }
}

function outputEvent({ seq, data, cols, rows }: Chunk): TerminalEvent {
  return { type: "output", seq, data, cols, rows };
}
