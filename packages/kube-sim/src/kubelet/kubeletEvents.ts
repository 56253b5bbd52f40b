/**
 * The Events the kubelet records about a pod (core/v1, as client-go's event recorder writes them:
 * named `<pod>.<hex time>`, source and reporting component `kubelet` on the node). The real
 * recorder repeats an event on every failed retry and its correlator counts them; here each
 * distinct event is recorded once per pod, so a test sees it deterministically with count 1.
 */
import type { Clock } from "../clock.ts";
import { timestamp } from "../clock.ts";
import type { InProcessClient } from "../inProcessClient.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import { NODE_NAME } from "./downwardApi.ts";

export interface PodEvent {
  /** `FailedMount`, `Failed`, … */
  reason: string;
  message: string;
  /** `spec.containers{<name>}` for an event about one container. */
  fieldPath?: string;
}

export class KubeletEvents {
  private readonly recorded = new Map<string, Set<string>>();
  private sequence = 0;

  constructor(private readonly $: { client: InProcessClient; clock: Clock }) {}

  /** Records a Warning about `pod`, unless this pod already has the same one. */
  warn(pod: KubeObject, event: PodEvent): void {
    const { namespace = "", name = "", uid = "", resourceVersion } = meta(pod);
    const key = JSON.stringify([event.reason, event.fieldPath ?? "", event.message]);
    const seen = this.recorded.get(uid) ?? new Set<string>();
    if (seen.has(key)) return;
    const now = timestamp(this.$.clock);
    // UnixNano in hex, made unique: a manual clock gives many events the same instant.
    const nanos = BigInt(this.$.clock.now().getTime()) * 1_000_000n + BigInt(this.sequence++);
    try {
      this.$.client.create("event", namespace, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
        involvedObject: {
          kind: "Pod",
          namespace,
          name,
          uid,
          apiVersion: "v1",
          ...(resourceVersion === undefined ? {} : { resourceVersion }),
          ...(event.fieldPath === undefined ? {} : { fieldPath: event.fieldPath }),
        },
        reason: event.reason,
        message: event.message,
        source: { component: "kubelet", host: NODE_NAME },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: "Warning",
        eventTime: null,
        reportingComponent: "kubelet",
        reportingInstance: NODE_NAME,
      });
    } catch {
      // The namespace is going away, or an admission hook refused it: events are best effort.
      return;
    }
    seen.add(key);
    this.recorded.set(uid, seen);
  }

  /** Forgets a deleted pod's events (the Event objects stay, as they do until their TTL). */
  forget(uid: string): void {
    this.recorded.delete(uid);
  }
}
