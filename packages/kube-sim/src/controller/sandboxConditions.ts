/** The Sandbox's conditions as pure functions of what the controller sees (§8.2, A3). */
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { Condition } from "./fields.ts";
import { condition, list, spec, status, str } from "./fields.ts";

export interface SandboxView {
  sandbox: KubeObject;
  /** The owned pod, if any. */
  pod: KubeObject | undefined;
  service: KubeObject | undefined;
  expired: boolean;
  /** A reconcile error, shown as ReconcilerError. */
  error: string | undefined;
  /** A pod with the sandbox's pod name exists but another object controls it. */
  podNotOwned: boolean;
  /** More than one pod is controlled by the Sandbox. */
  multiplePods: boolean;
}

type Computed = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

export function podPhase(pod: KubeObject): string {
  return str(status(pod).phase) ?? "Pending";
}

export function podReady(pod: KubeObject): boolean {
  return condition(pod, "Ready")?.status === "True";
}

/** The pod's IPs as the Sandbox status lists them: plain strings. */
export function podIPs(pod: KubeObject | undefined): string[] {
  if (pod === undefined) return [];
  return list(status(pod).podIPs).flatMap((entry) => {
    const ip = str(entry.ip);
    return ip === undefined ? [] : [ip];
  });
}

export const isSuspended = (sandbox: KubeObject): boolean =>
  spec(sandbox).operatingMode === "Suspended";

/** A Service is required when `spec.service` is true, or unset while one already exists. */
function serviceRequired(view: SandboxView): boolean {
  const wanted = spec(view.sandbox).service;
  return wanted === true || (wanted === undefined && view.service !== undefined);
}

export function readyCondition(view: SandboxView): Computed {
  const notReady = (reason: string, message: string): Computed => ({
    type: "Ready",
    status: "False",
    reason,
    message,
  });
  if (view.expired) return notReady("SandboxExpired", "Sandbox has expired");
  if (view.error !== undefined) return notReady("ReconcilerError", `Error seen: ${view.error}`);
  if (view.multiplePods) return notReady("MultiplePods", "Multiple pods are owned by this Sandbox");
  if (isSuspended(view.sandbox)) {
    return notReady(
      "SandboxSuspended",
      view.pod === undefined ? "Sandbox is suspended" : "Sandbox is suspending",
    );
  }
  const { pod } = view;
  if (pod !== undefined && podPhase(pod) === "Succeeded")
    return notReady("PodSucceeded", "Pod completed successfully");
  if (pod !== undefined && podPhase(pod) === "Failed") return notReady("PodFailed", "Pod failed");
  const required = serviceRequired(view);
  const serviceNote = required
    ? view.service === undefined
      ? "; Service does not exist"
      : "; Service Exists"
    : "";
  let podMessage: string;
  let podOk = false;
  if (pod === undefined) podMessage = "Pod does not exist";
  else if (podPhase(pod) !== "Running") podMessage = `Pod exists with phase: ${podPhase(pod)}`;
  else if (!podReady(pod)) podMessage = "Pod is Running but not Ready";
  else if (podIPs(pod).length === 0) podMessage = "Pod is Ready but has no podIPs yet";
  else {
    podMessage = "Pod is Ready";
    podOk = true;
  }
  const ready = podOk && (!required || view.service !== undefined);
  return ready
    ? {
        type: "Ready",
        status: "True",
        reason: "DependenciesReady",
        message: podMessage + serviceNote,
      }
    : notReady("DependenciesNotReady", podMessage + serviceNote);
}

export function suspendedCondition(view: SandboxView): Computed {
  if (!isSuspended(view.sandbox)) {
    return {
      type: "Suspended",
      status: "False",
      reason: "NotSuspended",
      message: "Sandbox is not suspended",
    };
  }
  if (view.podNotOwned) {
    return {
      type: "Suspended",
      status: "False",
      reason: "PodNotOwned",
      message: "Pod is not owned by this Sandbox",
    };
  }
  if (view.pod !== undefined) {
    return {
      type: "Suspended",
      status: "False",
      reason: "PodTerminating",
      message: "Pod is terminating",
    };
  }
  return {
    type: "Suspended",
    status: "True",
    reason: "PodTerminated",
    message: "Pod is terminated",
  };
}

/** PodScheduled mirrors the pod's own condition; undefined means "remove it". */
export function podScheduledCondition(view: SandboxView): Computed | undefined {
  if (view.pod === undefined || view.expired) return undefined;
  const own = condition(view.pod, "PodScheduled");
  if (own === undefined) {
    return {
      type: "PodScheduled",
      status: "Unknown",
      reason: "PodSchedulingUnknown",
      message: "Pod has no PodScheduled condition",
    };
  }
  return {
    type: "PodScheduled",
    status: own.status,
    // The scheduler sets no reason on success; the controller fills in its own (A3).
    reason: str(own.reason) ?? "PodScheduled",
    message: str(own.message) ?? "",
  };
}

/** Finished is set while the pod is terminal and kept afterwards (undefined: leave as is). */
export function finishedCondition(view: SandboxView): Computed | undefined {
  if (view.pod === undefined) return undefined;
  const phase = podPhase(view.pod);
  if (phase === "Succeeded")
    return {
      type: "Finished",
      status: "True",
      reason: "PodSucceeded",
      message: "Pod completed successfully",
    };
  if (phase === "Failed")
    return { type: "Finished", status: "True", reason: "PodFailed", message: "Pod failed" };
  return undefined;
}

export function generationOf(object: KubeObject): number {
  return meta(object).generation ?? 1;
}
