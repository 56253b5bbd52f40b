import type { ManifestJob, ManifestJobResult } from "./manifestJobs.ts";
import type { ThreadError } from "./threadErrors.ts";

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
  | { readonly kind: "job"; readonly id: number; readonly ok: false; readonly error: ThreadError };
