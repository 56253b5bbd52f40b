export { applyMigrations } from "./runner.ts";
export type { ApplyMigrationsOptions, ApplyMigrationsResult, MigrationEvent } from "./runner.ts";
export {
  defaultMigrationsDir,
  migrationsFingerprint,
  readMigrationFiles,
} from "./migrationFiles.ts";
export type { MigrationFile } from "./migrationFiles.ts";
export {
  MigrationChecksumMismatchError,
  MigrationFailedError,
  MigrationUnfinishedError,
} from "./errors.ts";
