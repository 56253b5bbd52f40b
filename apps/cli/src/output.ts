// Everything a command prints goes through here: with --json exactly one JSON document on
// stdout (scripts parse it), otherwise text for people. Notes and progress go to stderr, so
// stdout stays the command's result either way.

/** Where a command prints its result. */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly streams: {
      readonly stdout: NodeJS.WritableStream;
      readonly stderr: NodeJS.WritableStream;
    } = process,
  ) {}

  /** The command's result: `value` as JSON with --json, else the text `human` makes. */
  result(value: unknown, human: () => string): void {
    if (this.json) this.streams.stdout.write(`${toJson(value)}\n`);
    else {
      const text = human();
      if (text !== "") this.streams.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    }
  }

  /** A line for the person at the terminal, never part of the result. */
  note(message: string): void {
    if (!this.json) this.streams.stderr.write(`${message}\n`);
  }
}

/** JSON with bigints (event ids) as decimal strings and dates as ISO strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item),
    2,
  );
}

/** Rows under a header, each column as wide as its widest cell; the last column is not padded. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

const units = ["B", "KiB", "MiB", "GiB", "TiB"];

/** 1536 → "1.5 KiB". */
export function formatBytes(bytes: number | bigint): string {
  let value = Number(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${String(value)} B` : `${value.toFixed(1)} ${units[unit] ?? ""}`;
}

/** A time as people read it in a table: local, to the second. */
export function formatTime(at: Date | string | number): string {
  const date = at instanceof Date ? at : new Date(at);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${String(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Writes raw bytes to stdout, waiting when the reader is slower than the source. */
export async function writeStdout(chunk: Uint8Array): Promise<void> {
  if (process.stdout.write(chunk)) return;
  await new Promise<void>((resolve) => process.stdout.once("drain", resolve));
}
