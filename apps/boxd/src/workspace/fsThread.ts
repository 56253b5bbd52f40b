// boxd's worker thread (see fsThreads.ts). It serves two kinds of work, both against folders
// the sender holds (fds of this same process): manifest jobs, each answered with its result or
// error, and an extraction's batches of TreeOps calls, replayed in order until the first
// failure, each batch's buffer handed back to be filled again.
import { parentPort } from "node:worker_threads";
import {
  applyBatch,
  type FromExtractionThread,
  type ToExtractionThread,
} from "./extractionBatch.ts";
import { runManifestJob } from "./manifestJobs.ts";
import type { JobAnswer, JobRequest } from "./manifestMessages.ts";
import { serializeThreadError } from "./threadErrors.ts";
import { TreeOps } from "./treeOps.ts";

if (parentPort === null) throw new Error("fsThread runs as a worker thread only");
const port = parentPort;

let extraction: { readonly ops: TreeOps; failed: boolean } | undefined;

port.on("message", (message: JobRequest | ToExtractionThread) => {
  switch (message.kind) {
    case "job":
      port.postMessage(manifestJob(message));
      return;
    case "begin":
      extraction = { ops: new TreeOps(message.stagingFd), failed: false };
      return;
    case "batch": {
      const { bytes } = message;
      const answer = extractionBatch(message);
      port.postMessage(answer, [bytes]);
      return;
    }
    case "end":
      try {
        extraction?.ops.close();
      } finally {
        extraction = undefined;
        port.postMessage({ kind: "ended" } satisfies FromExtractionThread);
      }
      return;
  }
});

function manifestJob({ id, rootFd, job }: JobRequest): JobAnswer {
  try {
    return { kind: "job", id, ok: true, result: runManifestJob(rootFd, job) };
  } catch (error) {
    return { kind: "job", id, ok: false, error: serializeThreadError(error) };
  }
}

/** After a failure the rest of the extraction's batches only come back: the sender stops. */
function extractionBatch(
  message: Extract<ToExtractionThread, { kind: "batch" }>,
): FromExtractionThread {
  const { bytes } = message;
  if (extraction === undefined || extraction.failed) return { kind: "applied", bytes, digests: [] };
  try {
    return {
      kind: "applied",
      bytes,
      digests: applyBatch(extraction.ops, message.codes, Buffer.from(bytes)),
    };
  } catch (thrown) {
    extraction.failed = true;
    return { kind: "failed", bytes, error: serializeThreadError(thrown) };
  }
}
