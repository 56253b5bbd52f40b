/**
 * What one timed step asked of the API server, from kube-sim's request log: the requests up to
 * its last write (the allocation or the mode change — the same count every run: the figure the
 * issue asks for) and the reads after it (the readiness poll, as many as the wait lasted), with
 * when the last write was answered, to say where the step's time went.
 */
import type { KubeSim } from "@berth/kube-sim";

export interface RequestWindow {
  /** Requests up to and including the last write. */
  readonly calls: number;
  /** Reads after the last write: the readiness poll. */
  readonly pollReads: number;
  /** The requests, as `METHOD resource[/subresource]`, for a person reading a profile. */
  readonly trace: readonly string[];
  /** From the step's start to the last write's answer, ms (log timestamps: ms resolution). */
  readonly writesDoneMs: number;
}

/** Marks where a step starts in the log; `end()` reads what it asked. */
export function openWindow(sim: KubeSim): { end: () => RequestWindow } {
  const after = sim.requests.all().at(-1)?.seq ?? 0;
  const startedAt = Date.now();
  return {
    end: () => {
      const requests = sim.requests.all().filter((request) => request.seq > after);
      const lastWrite = requests.findLastIndex((request) => request.method !== "GET");
      const finished = requests[lastWrite]?.finishedAt?.getTime() ?? startedAt;
      return {
        calls: lastWrite + 1,
        pollReads: requests.length - (lastWrite + 1),
        trace: requests.map(
          (request) =>
            `${request.method} ${String(request.resource)}${request.subresource === undefined ? "" : `/${request.subresource}`}`,
        ),
        writesDoneMs: finished - startedAt,
      };
    },
  };
}
