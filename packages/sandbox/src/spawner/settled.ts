/**
 * A step's outcome held as a value, so that it can run beside another step and be looked at
 * only once that step's verdict is in (a rejection waits instead of racing the other step).
 */
export type Settled<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

export function settled<T>(step: Promise<T>): Promise<Settled<T>> {
  return step.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** The step's value, or its failure thrown now. */
export function unwrap<T>(outcome: Settled<T>): T {
  if (outcome.ok) return outcome.value;
  throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
}
