import { isBlocked } from "../lease/blocking.ts";
import type { ProcessHolders } from "../lease/processHolders.ts";
import type { BoxHandle } from "./boxHandle.ts";
import { BoxServiceError } from "./boxServiceError.ts";
import { blockedAnswer } from "./recoveryAnswers.ts";

/**
 * Makes a process a call started in its box (an open terminal) a holder of the group box's
 * lease, under the call's exact epoch and instance: the box stays warm while the process runs.
 */
export async function holdProcess(
  processes: ProcessHolders,
  handle: BoxHandle,
  input: { sessionId: string; holderId: string },
): Promise<void> {
  const { lease } = handle;
  // A machine's process holds nothing of the group box's lease: the machine is not leased.
  if (lease === null) return;
  const held = await processes.open({
    workspaceId: lease.workspaceId,
    leaseId: lease.id,
    expectedEpoch: lease.epoch,
    instanceId: lease.instanceId ?? "",
    holderId: input.holderId,
    subjectId: input.sessionId,
  });
  if (held.outcome !== "lost") return;
  const what = `The box moved on before its process could hold it (${held.reason}).`;
  if (held.lease !== null && isBlocked(held.lease)) throw blockedAnswer(held.lease, { what });
  throw new BoxServiceError({
    code: "fenced",
    message: `${what} Retry.`,
    retryable: true,
    epoch: held.lease?.epoch ?? lease.epoch,
  });
}
