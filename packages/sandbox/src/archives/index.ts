export { AbandonedCaptureSystem } from "./abandonedCaptureSystem.ts";
export type { AbandonedCaptureReport } from "./abandonedCaptureSystem.ts";
export { ArchiveIntegrityError, integrityCodes } from "./archiveErrors.ts";
export type { IntegrityCode } from "./archiveErrors.ts";
export { ArchiveRestorer } from "./archiveRestorer.ts";
export { findArchive, listArchives } from "./archiveRows.ts";
export type { ArchiveRow } from "./archiveRows.ts";
export {
  archiveLocationFromEnv,
  archiveStoreEnvSchema,
  archiveStoreEnvShape,
  archiveStoreFromEnv,
} from "./archiveStoreEnv.ts";
export type { ArchiveLocation, ArchiveStoreEnv } from "./archiveStoreEnv.ts";
export { ArchiveStoreError, checkArchiveKey } from "./archiveStore.ts";
export type {
  AbandonedSweep,
  ArchiveStore,
  ArchiveStoreHealth,
  ArchiveStoreStatus,
  BlobDigest,
  PendingBlob,
  PendingBlobTag,
} from "./archiveStore.ts";
export { CheckpointSystem } from "./checkpointSystem.ts";
export type { CheckpointOptions, CheckpointReport } from "./checkpointSystem.ts";
export { FilesystemArchiveStore } from "./filesystemArchiveStore.ts";
export type { FilesystemArchiveStoreOptions } from "./filesystemArchiveStore.ts";
export { S3ArchiveStore } from "./s3ArchiveStore.ts";
export type { S3ArchiveStoreOptions } from "./s3ArchiveStore.ts";
export { createS3Client } from "./s3Client.ts";
export type { S3ClientConfig } from "./s3Client.ts";
export type { ArchiveProgress, ProgressListener } from "./progress.ts";
export { WorkspaceArchiver } from "./workspaceArchiver.ts";
export type { ArchiverOptions } from "./workspaceArchiver.ts";
export { progressRecorder } from "./progressRecorder.ts";
export type { FailTransferOutcome } from "./progressRows.ts";
