import { checkArchiveKey } from "./archiveStore.ts";

/**
 * Where a store's objects live in its bucket: content keys under `<prefix>/`, pending blobs
 * under `<prefix>/.incoming/`. Archive keys cannot start a segment with `.` (checkArchiveKey),
 * so no content key ever lands among the pending ones.
 */
export class S3Location {
  readonly bucket: string;
  /** `""` or the prefix with one trailing `/`. */
  readonly #root: string;

  constructor(bucket: string, prefix: string) {
    this.bucket = bucket;
    const trimmed = prefix.replace(/^\/+|\/+$/g, "");
    if (trimmed !== "") checkArchiveKey(trimmed);
    this.#root = trimmed === "" ? "" : `${trimmed}/`;
  }

  /** `s3://bucket/prefix`: where the store is, as BERTH_ARCHIVE_URL names it. */
  get url(): string {
    return `s3://${this.bucket}/${this.#root.replace(/\/$/, "")}`;
  }

  /** The object key of archive key `key` (refused with `invalid_key` when it is not one). */
  contentKey(key: string): string {
    return this.#root + checkArchiveKey(key).join("/");
  }

  /** The folder of the pending blobs. */
  get incoming(): string {
    return `${this.#root}.incoming/`;
  }

  /** The object key of pending blob `id`. */
  pendingKey(id: string): string {
    return `${this.incoming}${id}`;
  }
}
