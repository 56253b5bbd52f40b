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

/**
 * What an S3 probe's failure means for whoever runs Berth, and what to check: the bucket, the
 * credentials, the region, or the endpoint itself.
 */
export function describeS3Problem(
  error: unknown,
  where: { readonly bucket: string; readonly endpoint: string; readonly timeoutMs: number },
): string {
  const { bucket, endpoint } = where;
  if (error instanceof S3ServiceException) {
    switch (error.$metadata.httpStatusCode ?? 0) {
      case 404:
        return `bucket "${bucket}" does not exist at ${endpoint}: create it, or fix BERTH_ARCHIVE_URL`;
      case 401:
      case 403:
        return `${endpoint} refused access to bucket "${bucket}": check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the profile, or the pod's web identity) and the bucket's policy`;
      case 301:
      case 307:
        return `bucket "${bucket}" is in another region: set BERTH_S3_REGION to its region`;
      default:
        return `${endpoint} answered ${error.name} (HTTP ${String(error.$metadata.httpStatusCode ?? "?")}) for bucket "${bucket}"`;
    }
  }
  const name = error instanceof Error ? error.name : "";
  if (name === "CredentialsProviderError")
    return "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile (AWS_PROFILE), or the pod's web identity";
  if (name === "TimeoutError" || name === "AbortError")
    return `${endpoint} did not answer within ${String(where.timeoutMs)} ms: check BERTH_S3_ENDPOINT and the network`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = code ?? (error instanceof Error ? error.message : String(error));
  return `cannot reach ${endpoint} (${reason}): check BERTH_S3_ENDPOINT and that the service is up`;
}
