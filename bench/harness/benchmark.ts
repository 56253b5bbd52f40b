import type { ChosenOptions, OptionChoices } from "./options.ts";

/** How long to measure: `short` keeps CI to a few seconds, `full` is what a note quotes. */
export type BenchMode = "short" | "full";

/** None: what a benchmark declaring no options is given. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an empty record, on purpose
export type NoOptions = {};

export interface BenchContext<O extends OptionChoices = NoOptions> {
  readonly mode: BenchMode;
  /** The benchmark's declared options as the command line chose them (defaults filled in). */
  readonly options: ChosenOptions<O>;
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

export interface Benchmark<O extends OptionChoices = NoOptions> {
  readonly name: string;
  readonly description: string;
  /** The options it takes (`--name=value` or `--name value`), each value allowed, default first. */
  readonly options?: O;
  run(context: BenchContext<O>): Promise<BenchOutcome>;
}

export function defineBenchmark<const O extends OptionChoices = NoOptions>(
  benchmark: Benchmark<O>,
): Benchmark<O> {
  return benchmark;
}
