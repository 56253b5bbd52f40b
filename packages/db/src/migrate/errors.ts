/** An applied migration's file no longer matches what was applied. */
export class MigrationChecksumMismatchError extends Error {
  override readonly name = "MigrationChecksumMismatchError";
  readonly migration: string;
  readonly path: string;
  readonly appliedChecksum: string;
  readonly fileChecksum: string;

  constructor(details: {
    migration: string;
    path: string;
    appliedChecksum: string;
    fileChecksum: string;
  }) {
    super(
      `Migration ${details.migration} was edited after it was applied (${details.path}: applied ` +
        `checksum ${details.appliedChecksum.slice(0, 12)}…, file now ${details.fileChecksum.slice(0, 12)}…). ` +
        `Restore the file and put the change in a new migration.`,
    );
    this.migration = details.migration;
    this.path = details.path;
    this.appliedChecksum = details.appliedChecksum;
    this.fileChecksum = details.fileChecksum;
  }
}

/** A migration's SQL failed; its transaction was rolled back and nothing of it remains. */
export class MigrationFailedError extends Error {
  override readonly name = "MigrationFailedError";
  constructor(
    readonly migration: string,
    readonly path: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Migration ${migration} failed and was rolled back (${path}): ${reason}`, { cause });
  }
}

/** `_prisma_migrations` records a migration that started and never finished (e.g. by Prisma's CLI). */
export class MigrationUnfinishedError extends Error {
  override readonly name = "MigrationUnfinishedError";
  constructor(readonly migration: string) {
    super(
      `Migration ${migration} is recorded as started but not finished in _prisma_migrations. ` +
        `Check the database by hand, then delete that row or mark it rolled back.`,
    );
  }
}
