/**
 * Writing a Sandbox's operating mode (spec/kubernetes.md §5.3): fenced when the caller passes an
 * epoch (one JSON Patch through holderEpoch.ts), otherwise the plain merge patch. A write that
 * would change nothing sends nothing — except a fenced caller above the stored epoch, which
 * stamps its epoch (a takeover), so an older holder can no longer write.
 */
import {
  fencedWrite,
  refuseUnlessAllowed,
  MODE_CHANGED_AT_ANNOTATION,
  readHolderEpoch,
} from "./holderEpoch.ts";
import type { KubeClient } from "./kubeClient.ts";
import { SANDBOX, type KubeObject } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";
import { operatingModeOf, type OperatingMode } from "./sandboxStatus.ts";

export interface ModeWrite {
  /** The port call, for refusals' messages. */
  readonly operation: string;
  /** The Sandbox as this call read it. */
  readonly sandbox: KubeObject;
  readonly mode: OperatingMode;
  /** The caller's lease epoch; undefined writes unfenced. */
  readonly epoch: number | undefined;
  readonly now: () => Date;
}

/** @returns whether a request was sent */
export async function writeOperatingMode(
  client: KubeClient,
  op: Operation,
  write: ModeWrite,
): Promise<boolean> {
  const { sandbox, mode, epoch } = write;
  const changes = operatingModeOf(sandbox) !== mode;
  const name = sandbox.metadata.name;
  if (epoch === undefined) {
    if (!changes) return false;
    await client.patch(
      op,
      { kind: SANDBOX, name },
      {
        type: "merge",
        body: {
          metadata: { annotations: { [MODE_CHANGED_AT_ANNOTATION]: write.now().toISOString() } },
          spec: { operatingMode: mode },
        },
      },
    );
    return true;
  }
  const stored = readHolderEpoch(sandbox).epoch;
  refuseUnlessAllowed({ operation: write.operation, sandboxName: name, epoch, stored });
  if (!changes && stored === epoch) return false;
  await fencedWrite(client, op, {
    operation: write.operation,
    sandbox,
    epoch,
    ...(changes ? { operatingMode: mode } : {}),
    now: write.now,
  });
  return true;
}
