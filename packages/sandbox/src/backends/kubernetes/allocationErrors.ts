/**
 * Why an allocation was not made. Both are decided before anything is written: a refusal leaves
 * the standing Sandbox exactly as it was (nothing patched, nothing woken).
 */

/** The allocation's own input cannot be used (an id, a label value, a name). Nothing was sent. */
export class AllocationInputError extends Error {
  override readonly name = "AllocationInputError";
  constructor(
    /** The input at fault, e.g. `installationId`, `profile.image`, `volumeClaimTemplates[0]`. */
    readonly field: string,
    readonly reason: string,
  ) {
    super(`cannot allocate a Sandbox: ${field} ${reason}`);
  }
}

/** Which allocation annotation differed (or was missing) on the Sandbox already there. */
export type AllocationField = "allocation-id" | "allocation-scope" | "execution-profile";

/**
 * The Sandbox this allocation is named for already exists and is not this allocation's: another
 * allocation holds the name (a short-form collision included), the same allocation was made
 * for another scope or under another execution profile, or the object carries no allocation
 * at all. It is refused rather than adopted or stamped.
 */
export class AllocationRefusedError extends Error {
  override readonly name = "AllocationRefusedError";
  readonly sandboxName: string;
  readonly field: AllocationField;
  /** What this allocation would have written. */
  readonly expected: string;
  /** What the Sandbox carries; undefined when the annotation is absent. */
  readonly actual: string | undefined;

  constructor(refusal: {
    sandboxName: string;
    field: AllocationField;
    expected: string;
    actual: string | undefined;
  }) {
    const { sandboxName, field, expected, actual } = refusal;
    super(
      actual === undefined
        ? `Sandbox ${sandboxName} already exists without a ${field} annotation: it is not an allocation Berth can adopt`
        : `Sandbox ${sandboxName} already exists with another ${field} (${actual}, not ${expected}): refused, nothing changed`,
    );
    this.sandboxName = sandboxName;
    this.field = field;
    this.expected = expected;
    this.actual = actual;
  }
}
