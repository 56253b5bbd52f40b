import { BoxError, type BoxErrorCode } from "@berth/box-protocol";
import { errnoOf } from "../fs/fsErrors.ts";
import type { ManifestJob, ManifestJobResult } from "./manifestJobs.ts";

/** What a manifest thread is sent: one job, and the root (an fd of this process) it runs from. */
export interface JobRequest {
  readonly kind: "job";
  readonly id: number;
  readonly rootFd: number;
  readonly job: ManifestJob;
}

export type JobAnswer =
  | {
      readonly kind: "job";
      readonly id: number;
      readonly ok: true;
      readonly result: ManifestJobResult;
    }
  | { readonly kind: "job"; readonly id: number; readonly ok: false; readonly error: JobError };

/** A job's failure as it crosses threads: a BoxError keeps its code, a system error its errno. */
export type JobError =
  | { readonly kind: "box"; readonly code: BoxErrorCode; readonly message: string }
  | { readonly kind: "other"; readonly message: string; readonly errno?: string };

export function serializeJobError(error: unknown): JobError {
  if (error instanceof BoxError) return { kind: "box", code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  const errno = errnoOf(error);
  return errno === undefined ? { kind: "other", message } : { kind: "other", message, errno };
}

/** The error again, on this side: what the job would have thrown had it run here. */
export function revive(error: JobError): Error {
  switch (error.kind) {
    case "box":
      return new BoxError(error.code, error.message);
    case "other":
      return Object.assign(
        new Error(error.message),
        error.errno === undefined ? {} : { code: error.errno },
      );
  }
}
