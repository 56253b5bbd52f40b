// A manifest thread (see manifestThreads.ts): runs the jobs it is sent against the workspace
// root the sender holds (an fd of this same process) and answers each with its result or error.
import { parentPort } from "node:worker_threads";
import { runManifestJob } from "./manifestJobs.ts";
import { serializeJobError, type JobAnswer, type JobRequest } from "./manifestMessages.ts";

if (parentPort === null) throw new Error("manifestWorker runs as a worker thread only");
const port = parentPort;

port.on("message", ({ id, rootFd, job }: JobRequest) => {
  let answer: JobAnswer;
  try {
    answer = { id, ok: true, result: runManifestJob(rootFd, job) };
  } catch (error) {
    answer = { id, ok: false, error: serializeJobError(error) };
  }
  port.postMessage(answer);
});
