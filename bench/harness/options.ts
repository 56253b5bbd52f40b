import { z } from "zod";

/**
 * The options a benchmark takes, each with its allowed values; the first value is the default,
 * so a run without the option measures what it always has.
 */
export type OptionChoices = Readonly<Record<string, readonly [string, ...string[]]>>;

/** The value chosen for each option a benchmark declares. */
export type ChosenOptions<O extends OptionChoices> = { readonly [K in keyof O]: O[K][number] };

/** A command line the harness cannot run: the CLI prints it and exits 2. */
export class BenchUsageError extends Error {
  override readonly name = "BenchUsageError";
}

/** `pnpm bench`'s command line, split into the harness's own settings and a benchmark's options. */
export interface BenchArgs {
  readonly names: readonly string[];
  readonly short: boolean;
  readonly root: string | undefined;
  readonly results: string | undefined;
  /** Every other `--name=value` or `--name value`, for the benchmarks to validate. */
  readonly options: Readonly<Record<string, string>>;
}

/**
 * Splits `args`: `--short` is the only flag without a value; every other `--name` takes one,
 * written `--name=value` or `--name value` (so `--store s3` does not read `s3` as a benchmark).
 */
export function parseBenchArgs(args: readonly string[]): BenchArgs {
  const names: string[] = [];
  const given = new Map<string, string>();
  let short = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? "";
    if (!arg.startsWith("--")) {
      names.push(arg);
      continue;
    }
    if (arg === "--short") {
      short = true;
      continue;
    }
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    let value = equals === -1 ? undefined : arg.slice(equals + 1);
    if (value === undefined) {
      const next = args[i + 1];
      if (next === undefined || next.startsWith("--"))
        throw new BenchUsageError(`--${name} needs a value (--${name}=VALUE or --${name} VALUE)`);
      value = next;
      i += 1;
    }
    if (name === "") throw new BenchUsageError(`"${arg}" names no option`);
    if (given.has(name)) throw new BenchUsageError(`--${name} is given twice`);
    given.set(name, value);
  }
  const { root, results, ...options } = Object.fromEntries(given);
  return { names, short, root, results, options };
}

/**
 * Validates `given` against what a benchmark declares: an option it does not take, or a value
 * it does not allow, is a usage error; an option not given takes its default.
 */
export function chooseOptions<O extends OptionChoices>(
  benchmark: string,
  declared: O,
  given: Readonly<Record<string, string>>,
): ChosenOptions<O> {
  const shape = Object.fromEntries(
    Object.entries(declared).map(([name, values]) => [name, z.enum(values).default(values[0])]),
  );
  const parsed = z.strictObject(shape).safeParse(given);
  if (!parsed.success) {
    throw new BenchUsageError(`${benchmark}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data as ChosenOptions<O>;
}

/** The options that differ from their defaults, as [name, value] pairs. */
export function nonDefaultOptions(
  declared: OptionChoices,
  chosen: Readonly<Record<string, string>>,
): [string, string][] {
  return Object.entries(chosen).filter(([name, value]) => declared[name]?.[0] !== value);
}
