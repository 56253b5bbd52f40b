/**
 * Why a restore could not trust its archive or its result. Each code carries whether one retry
 * may help (degraded) or an admin must act (unrecoverable).
 */
export const integrityCodes = {
  /** The archive's blob is not in the store. */
  archive_missing: false,
  /** The blob's bytes do not match their recorded sha256 and size, or do not form the archive. */
  archive_corrupt: false,
  /** The lease selects a revision no usable archive row describes. */
  archive_metadata_invalid: false,
  /** The blob could not be read to the end just now (the store failed, not the bytes). */
  archive_unverified: true,
  /** The box did not take the archive (connection lost, box died mid-hydrate). */
  archive_hydration_failed: true,
  /** The box's workspace after hydrate is not the selected revision. */
  workspace_fingerprint_mismatch: false,
} as const satisfies Record<string, boolean>;

export type IntegrityCode = keyof typeof integrityCodes;

export class ArchiveIntegrityError extends Error {
  override readonly name = "ArchiveIntegrityError";
  readonly retryable: boolean;

  constructor(
    readonly code: IntegrityCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.retryable = integrityCodes[code];
  }
}
