/**
 * Faults tests put on pods (§8.6), by image or by pod name: the pod stays unschedulable, sticks
 * in image pull, runs without becoming Ready or without an IP, or its process exits.
 */
export type PodFault =
  | { kind: "Unschedulable"; message?: string }
  | { kind: "ImagePull" }
  | { kind: "NotReady" }
  | { kind: "NoPodIP" }
  | { kind: "Exit"; code: number };

export interface FaultTarget {
  /** Matches pods with a container of this image. */
  image?: string;
  /** Matches the pod of this name (in any namespace unless `namespace` is given). */
  pod?: string;
  namespace?: string;
}

interface Rule {
  target: FaultTarget;
  fault: PodFault;
}

export class PodFaults {
  private readonly rules = new Set<Rule>();

  /** Adds a fault; returns a function that removes it. Later rules win. */
  set(target: FaultTarget, fault: PodFault): () => void {
    const rule = { target, fault };
    this.rules.add(rule);
    return () => this.rules.delete(rule);
  }

  clear(): void {
    this.rules.clear();
  }

  /** The fault for a pod, or undefined. */
  match(pod: { namespace: string; name: string; images: string[] }): PodFault | undefined {
    let found: PodFault | undefined;
    for (const { target, fault } of this.rules) {
      if (target.namespace !== undefined && target.namespace !== pod.namespace) continue;
      if (target.pod !== undefined && target.pod !== pod.name) continue;
      if (target.image !== undefined && !pod.images.includes(target.image)) continue;
      if (target.image === undefined && target.pod === undefined) continue;
      found = fault;
    }
    return found;
  }
}
