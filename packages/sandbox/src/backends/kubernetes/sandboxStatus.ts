/**
 * What a Sandbox says of its box, read from its spec and status (spec/kubernetes.md §7.2): its
 * operating mode, whether its `Ready` condition speaks for the current spec, and the box state
 * inventory reports. Pure functions over the object as the API answered it.
 */
import { z } from "zod";
import type { BoxState } from "../../spawner/backend.ts";
import type { KubeObject } from "./kubeObjects.ts";

const conditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  observedGeneration: z.number().optional(),
});

const sandboxViewSchema = z.looseObject({
  spec: z.looseObject({ operatingMode: z.string().optional() }).optional(),
  status: z.looseObject({ conditions: z.array(conditionSchema).optional() }).optional(),
});

export type OperatingMode = "Running" | "Suspended";

/** The mode the Sandbox's spec asks for; the CRD's default is Running. */
export function operatingModeOf(sandbox: KubeObject): OperatingMode {
  const parsed = sandboxViewSchema.safeParse(sandbox);
  return parsed.success && parsed.data.spec?.operatingMode === "Suspended"
    ? "Suspended"
    : "Running";
}

/** The `Ready` condition, if the status has one. */
export function readyConditionOf(sandbox: KubeObject): z.infer<typeof conditionSchema> | undefined {
  const parsed = sandboxViewSchema.safeParse(sandbox);
  if (!parsed.success) return undefined;
  return parsed.data.status?.conditions?.find((condition) => condition.type === "Ready");
}

/**
 * `Ready: True` for the spec as it stands: the condition's observedGeneration must reach the
 * object's generation — a lower one is the outcome of an earlier spec (just after a Running
 * patch, say), so not yet. When either number is absent, plain `Ready: True` counts.
 */
export function isReadyNow(sandbox: KubeObject): boolean {
  const ready = readyConditionOf(sandbox);
  if (ready?.status !== "True") return false;
  const generation = sandbox.metadata.generation;
  const observed = ready.observedGeneration;
  if (generation === undefined || observed === undefined) return true;
  return observed >= generation;
}

/**
 * The box state a Sandbox stands for: gone once it is being deleted, suspended when its spec
 * says so (whether or not its pod has stopped yet), running once Ready for its current spec,
 * starting before that.
 */
export function boxStateOf(sandbox: KubeObject): BoxState {
  if (sandbox.metadata.deletionTimestamp != null) return "gone";
  if (operatingModeOf(sandbox) === "Suspended") return "suspended";
  return isReadyNow(sandbox) ? "running" : "starting";
}

/** Why the Sandbox is not serving yet, in the controller's words where it gave them. */
export function notReadyReason(sandbox: KubeObject): string {
  const ready = readyConditionOf(sandbox);
  if (ready === undefined) return "its controller has not reported Ready yet";
  if (ready.status === "True") return "its Ready condition is for an earlier spec";
  return `Ready is ${ready.status}${ready.reason === undefined ? "" : ` (${ready.reason}${ready.message === undefined ? "" : `: ${ready.message}`})`}`;
}
