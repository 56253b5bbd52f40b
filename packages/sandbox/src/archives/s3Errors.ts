import { S3ServiceException } from "@aws-sdk/client-s3";
import { ArchiveStoreError } from "./archiveStore.ts";

/**
 * The one place an S3 failure becomes an ArchiveStoreError: a 404 (GetObject's NoSuchKey,
 * HeadObject's bodiless NotFound) is `not_found`; everything else — the server, the network,
 * a listener that threw while bytes streamed — is `io`. A store error passes through as it is.
 */
export function toStoreError(error: unknown, doing: string): ArchiveStoreError {
  if (error instanceof ArchiveStoreError) return error;
  if (isNotFound(error)) return new ArchiveStoreError("not_found", `no archive blob: ${doing}`);
  return new ArchiveStoreError("io", `could not ${doing}: ${String(error)}`, { cause: error });
}

/** Whether S3 answered that the object (or upload) is not there. */
export function isNotFound(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return (
    error.name === "NoSuchKey" ||
    error.name === "NotFound" ||
    error.$metadata.httpStatusCode === 404
  );
}
