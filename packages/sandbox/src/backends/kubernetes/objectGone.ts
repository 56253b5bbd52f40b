/** Whether the API answers `gone` (404) for an object: what a wait for a delete reads. */
import type { KubeClient, ObjectRef } from "./kubeClient.ts";
import { KubeError } from "./kubeErrors.ts";
import type { Operation } from "./operation.ts";

export async function objectGone(
  client: KubeClient,
  op: Operation,
  target: ObjectRef,
): Promise<boolean> {
  try {
    await client.get(op, target);
    return false;
  } catch (error) {
    if (error instanceof KubeError && error.kind === "gone") return true;
    throw error;
  }
}
