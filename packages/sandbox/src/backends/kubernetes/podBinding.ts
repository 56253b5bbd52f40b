/**
 * Whether a box's pod is the one to serve it now, and its address as a URL host: the checks
 * every reach makes before it trusts a pod IP with the box's token.
 */
import type { PodReading } from "./kubeObjects.ts";

/** An IPv6 pod IP goes in brackets in a URL. */
export function hostOf(ip: string): string {
  return ip.includes(":") ? `[${ip}]` : ip;
}

/**
 * Why a pod cannot be the box's now, or undefined when it can: it must be live (not terminating,
 * not terminal), Running with an address, and not the pod a resume is retiring.
 */
export function whyUnbound(
  pod: PodReading | undefined,
  retiring: string | undefined,
): string | undefined {
  if (pod === undefined) return "missing";
  if (pod.uid === undefined) return "without a uid";
  if (pod.uid === retiring) return `still the retiring pod ${retiring}`;
  if (pod.deleting) return `terminating (pod ${pod.uid}; it goes after its grace period)`;
  if (pod.phase !== "Running") return `in phase ${String(pod.phase)}`;
  if (pod.podIP === undefined) return "without an address";
  return undefined;
}
