import { S3Client } from "@aws-sdk/client-s3";

/** How to reach an S3-compatible service; credentials come from the standard AWS chain. */
export interface S3ClientConfig {
  /** e.g. `http://127.0.0.1:9000` for MinIO; AWS itself when absent. */
  readonly endpoint?: string;
  readonly region?: string;
  /** `bucket` in the path, not the host name: what MinIO and Ceph usually need. */
  readonly forcePathStyle?: boolean;
  /** Explicit credentials (tests); absent means the AWS default chain. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** The one S3Client the archive store uses. */
export function createS3Client(config: S3ClientConfig): S3Client {
  return new S3Client({
    region: config.region ?? "us-east-1",
    forcePathStyle: config.forcePathStyle ?? false,
    // The SDK's default checksums (CRC32 trailers on aws-chunked bodies) are not spoken by
    // every S3-compatible server (s3rver, older MinIO and Ceph): send them only where S3
    // requires them. The archive's own sha256 is what proves its bytes.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
  });
}
