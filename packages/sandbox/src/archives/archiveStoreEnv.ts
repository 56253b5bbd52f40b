import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DbClient } from "@berth/db";
import { z } from "zod";
import { ArchiveStoreError, checkArchiveKey, type ArchiveStore } from "./archiveStore.ts";
import { FilesystemArchiveStore } from "./filesystemArchiveStore.ts";
import { S3ArchiveStore } from "./s3ArchiveStore.ts";
import { createS3Client } from "./s3Client.ts";

/** Where archive blobs live, as the environment chose it. */
export type ArchiveLocation =
  | { readonly kind: "filesystem"; readonly root: string }
  | {
      readonly kind: "s3";
      readonly bucket: string;
      readonly prefix: string;
      readonly endpoint?: string;
      readonly region?: string;
      readonly forcePathStyle: boolean;
    };

/**
 * The archive store's settings, for a process's env schema (api, worker). BERTH_ARCHIVE_URL
 * (`file:///path` or `s3://bucket/prefix`) wins over BERTH_ARCHIVE_DIR, the short form of a
 * file:// URL: the launcher passes its children BERTH_ARCHIVE_DIR always, so a bucket chosen by
 * URL must not lose to it. Neither set: `<BERTH_DATA_DIR>/archives`.
 */
export const archiveStoreEnvShape = {
  BERTH_ARCHIVE_URL: z
    .string()
    .min(1)
    .optional()
    .superRefine((url, context) => {
      if (url === undefined) return;
      const problem = urlProblem(url);
      if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
    }),
  BERTH_ARCHIVE_DIR: z.string().min(1).optional(),
  /** An S3-compatible service's address (MinIO, R2, Ceph); AWS S3 itself when absent. */
  BERTH_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  BERTH_S3_REGION: z.string().min(1).optional(),
  /** `true`: the bucket goes in the path, not the host name (MinIO and Ceph usually need it). */
  BERTH_S3_FORCE_PATH_STYLE: z.stringbool().default(false),
};

export type ArchiveStoreEnv = z.infer<z.ZodObject<typeof archiveStoreEnvShape>> & {
  readonly BERTH_DATA_DIR: string;
};

/** The shape on its own, for a process that reads nothing else of sandbox's (the launcher). */
export const archiveStoreEnvSchema = z.object({
  ...archiveStoreEnvShape,
  BERTH_DATA_DIR: z.string().min(1).default(".data"),
});

/** Where the environment puts archive blobs (BERTH_ARCHIVE_URL first, see the shape). */
export function archiveLocationFromEnv(env: ArchiveStoreEnv): ArchiveLocation {
  const url = env.BERTH_ARCHIVE_URL;
  if (url === undefined) {
    return {
      kind: "filesystem",
      // A folder chosen at run time: the dashboard's build must not trace it into its output.
      root: resolve(
        /* turbopackIgnore: true */ env.BERTH_ARCHIVE_DIR ?? join(env.BERTH_DATA_DIR, "archives"),
      ),
    };
  }
  const parsed = new URL(url);
  if (parsed.protocol === "file:") return { kind: "filesystem", root: fileURLToPath(parsed) };
  return {
    kind: "s3",
    bucket: parsed.hostname,
    prefix: decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, ""),
    forcePathStyle: env.BERTH_S3_FORCE_PATH_STYLE,
    ...(env.BERTH_S3_ENDPOINT === undefined ? {} : { endpoint: env.BERTH_S3_ENDPOINT }),
    ...(env.BERTH_S3_REGION === undefined ? {} : { region: env.BERTH_S3_REGION }),
  };
}

/**
 * The archive store the environment names; S3 credentials come from the standard AWS chain, and
 * its pending uploads are recorded in `db` (without one, the sweep cannot find a dead capture's).
 */
export function archiveStoreFromEnv(env: ArchiveStoreEnv, db?: DbClient): ArchiveStore {
  const location = archiveLocationFromEnv(env);
  switch (location.kind) {
    case "filesystem":
      return new FilesystemArchiveStore({ root: location.root });
    case "s3":
      return new S3ArchiveStore({
        client: createS3Client(location),
        bucket: location.bucket,
        prefix: location.prefix,
        ...(location.endpoint === undefined ? {} : { endpoint: location.endpoint }),
        ...(db === undefined ? {} : { db }),
      });
  }
}

/** Why `url` names no archive store, or undefined when it names one. */
function urlProblem(url: string): string | undefined {
  const example = "e.g. s3://my-bucket/berth or file:///var/lib/berth/archives";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `must be a file:// or s3:// URL, ${example}`;
  }
  if (parsed.protocol === "file:") {
    if (parsed.hostname !== "" || !isAbsolute(fileURLToPath(parsed)))
      return `a file:// URL names an absolute local folder, e.g. file:///var/lib/berth/archives`;
    return undefined;
  }
  if (parsed.protocol !== "s3:") return `must be a file:// or s3:// URL, ${example}`;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(parsed.hostname))
    return `must name a bucket (3–63 lowercase letters, digits, . and -), ${example}`;
  if (parsed.search !== "" || parsed.hash !== "" || parsed.username !== "")
    return `takes no query, fragment or credentials (credentials come from the AWS chain), ${example}`;
  const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, "");
  if (prefix === "") return undefined;
  try {
    checkArchiveKey(prefix);
    return undefined;
  } catch (error) {
    if (error instanceof ArchiveStoreError)
      return `its prefix must be /-separated names of letters, digits, ., _ and -, ${example}`;
    throw error;
  }
}
