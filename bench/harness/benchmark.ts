/** How long to measure: `short` keeps CI to a few seconds, `full` is what a note quotes. */
export type BenchMode = "short" | "full";

export interface BenchContext {
  readonly mode: BenchMode;
  /** Progress for a person watching; goes to stderr so stdout stays the table and RESULT line. */
  readonly progress: (message: string) => void;
}

export interface BenchOutcome {
  /** berth / baseline, in cost (time per operation): below 1 is faster than the baseline. */
  readonly ratio: number;
  /** The goal as written in the RESULT line, e.g. `ratio<=1.5,attach_ops>=1000`. */
  readonly goal: string;
  readonly goalMet: boolean;
  /** Every figure, flat, for the RESULT line and the JSON file. */
  readonly figures: Readonly<Record<string, number | string>>;
  /** Rows printed as a table before the RESULT line. */
  readonly table: readonly Readonly<Record<string, number | string>>[];
}

export interface Benchmark {
  readonly name: string;
  readonly description: string;
  run(context: BenchContext): Promise<BenchOutcome>;
}

export function defineBenchmark(benchmark: Benchmark): Benchmark {
  return benchmark;
}
