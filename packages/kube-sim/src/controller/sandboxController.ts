/**
 * The Sandbox reconciler (§8.1–8.3, A3): PVCs, the Pod and the optional headless Service, the
 * `pod-name` annotation, status through `/status`, suspension and expiry. A Sandbox has no
 * finalizer; once it is being deleted, garbage collection alone removes its children.
 */
import { timestamp } from "../clock.ts";
import type { Clock } from "../clock.ts";
import type { InProcessClient } from "../inProcessClient.ts";
import { nameHash } from "../nameHash.ts";
import type { KubeObject } from "../objects.ts";
import { clone, jsonEqual, meta } from "../objects.ts";
import type { Condition } from "./fields.ts";
import {
  ANNOTATION,
  LABEL,
  conditions,
  controllerOf,
  controllerRef,
  isControlledBy,
  isDeleting,
  list,
  record,
  setCondition,
  spec,
  status,
  str,
} from "./fields.ts";
import type { SandboxView } from "./sandboxConditions.ts";
import {
  finishedCondition,
  generationOf,
  isSuspended,
  podIPs,
  podReady,
  podScheduledCondition,
  readyCondition,
  suspendedCondition,
} from "./sandboxConditions.ts";

/** The controller requeues an unexpired Sandbox no sooner than this (A9). */
const MIN_EXPIRY_REQUEUE_MS = 2000;

const RESERVED_PREFIXES = ["agents.x-k8s.io/", "extensions.agents.x-k8s.io/"];
const isReserved = (key: string): boolean => RESERVED_PREFIXES.some((p) => key.startsWith(p));

/** `created-by` as the metrics normalise it (A11). */
function createdBy(value: string | undefined): string {
  switch (value) {
    case "go-client":
    case "python-client":
    case "controller":
      return value;
    case undefined:
    default:
      return "unknown";
  }
}

/** What reconciling the pod found: the one owned pod (or none), a stranger's, or several. */
type PodState = "owned" | "notOwned" | "multiple";

export interface ReconcileHooks {
  /** Reconcile this Sandbox again once the clock reads `at`. */
  requeueAt(at: number): void;
}

export class SandboxController {
  constructor(private readonly $: { client: InProcessClient; clock: Clock }) {}

  reconcile(namespace: string, name: string, hooks: ReconcileHooks): void {
    const { client } = this.$;
    const sandbox = client.get("sandbox", namespace, name);
    if (sandbox === undefined || isDeleting(sandbox)) return;
    const now = this.$.clock.now().getTime();
    const shutdown = str(spec(sandbox).shutdownTime);
    const shutdownAt = shutdown === undefined ? undefined : Date.parse(shutdown);
    if (shutdownAt !== undefined && now >= shutdownAt) {
      this.expire(sandbox, hooks);
      return;
    }
    if (shutdownAt !== undefined)
      hooks.requeueAt(Math.max(shutdownAt, now + MIN_EXPIRY_REQUEUE_MS));

    let error: string | undefined;
    let podState: PodState = "owned";
    try {
      this.reconcilePvcs(sandbox);
      podState = this.reconcilePod(sandbox);
      this.reconcileService(sandbox);
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const fresh = client.get("sandbox", namespace, name);
    if (fresh === undefined) return;
    this.writeStatus(fresh, {
      sandbox: fresh,
      pod: this.ownedPod(fresh),
      service: this.ownedService(fresh),
      expired: false,
      error,
      podNotOwned: podState === "notOwned",
      multiplePods: podState === "multiple",
    });
  }

  private podName(sandbox: KubeObject): string {
    return meta(sandbox).annotations?.[ANNOTATION.podName] ?? meta(sandbox).name ?? "";
  }

  private ownedPod(sandbox: KubeObject): KubeObject | undefined {
    return this.$.client
      .list("pod", meta(sandbox).namespace)
      .find((pod) => isControlledBy(pod, sandbox));
  }

  private ownedService(sandbox: KubeObject): KubeObject | undefined {
    const service = this.$.client.get(
      "service",
      meta(sandbox).namespace ?? "",
      meta(sandbox).name ?? "",
    );
    return service !== undefined && isControlledBy(service, sandbox) ? service : undefined;
  }

  private reconcilePvcs(sandbox: KubeObject): void {
    const { namespace = "", name = "" } = meta(sandbox);
    for (const template of list(spec(sandbox).volumeClaimTemplates)) {
      const templateMeta = record(template.metadata);
      const pvcName = `${str(templateMeta.name) ?? ""}-${name}`;
      const existing = this.$.client.get("pvc", namespace, pvcName);
      if (existing !== undefined) {
        this.adoptPvc(sandbox, existing);
        continue;
      }
      this.$.client.create("pvc", namespace, {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: {
          name: pvcName,
          labels: {
            ...(record(templateMeta.labels) as Record<string, string>),
            [LABEL.nameHash]: nameHash(name),
          },
          annotations: record(templateMeta.annotations),
          ownerReferences: [controllerRef(sandbox)],
        },
        spec: clone(record(template.spec)),
      });
    }
  }

  /**
   * An existing PVC of the right name is used when this Sandbox controls it, or adopted when it
   * is unowned and marked adoptable or carries this Sandbox's hash label (A3); any other owner
   * is a reconcile error.
   */
  private adoptPvc(sandbox: KubeObject, pvc: KubeObject): void {
    if (isControlledBy(pvc, sandbox)) return;
    const { namespace = "", name = "", labels, annotations } = meta(pvc);
    const adoptable =
      labels?.[LABEL.adoptable] === "true" ||
      annotations?.[LABEL.adoptable] === "true" ||
      labels?.[LABEL.nameHash] === nameHash(meta(sandbox).name ?? "");
    if (controllerOf(pvc) !== undefined || !adoptable)
      throw new Error(`PersistentVolumeClaim ${name} exists and is not adoptable`);
    this.$.client.mergePatch(
      { kind: "pvc", namespace, name },
      {
        metadata: {
          ownerReferences: [...(meta(pvc).ownerReferences ?? []), controllerRef(sandbox)],
        },
      },
    );
  }

  private podLabelsAndAnnotations(sandbox: KubeObject): {
    labels: Record<string, string>;
    annotations: Record<string, string>;
  } {
    const template = record(record(spec(sandbox).podTemplate).metadata);
    const labels: Record<string, string> = {};
    const propagatedLabels: string[] = [];
    for (const [key, value] of Object.entries(record(template.labels))) {
      if (isReserved(key) || typeof value !== "string") continue;
      labels[key] = value;
      propagatedLabels.push(key);
    }
    const annotations: Record<string, string> = {};
    const propagatedAnnotations: string[] = [];
    for (const [key, value] of Object.entries(record(template.annotations))) {
      if (isReserved(key) || typeof value !== "string") continue;
      annotations[key] = value;
      propagatedAnnotations.push(key);
    }
    const sandboxLabels = meta(sandbox).labels ?? {};
    labels[LABEL.nameHash] = nameHash(meta(sandbox).name ?? "");
    const owner = controllerOf(sandbox);
    if (owner?.kind === "SandboxWarmPool" || owner?.kind === "SandboxClaim") {
      const poolHash = sandboxLabels[LABEL.warmPool];
      if (owner.kind === "SandboxWarmPool" && poolHash !== undefined)
        labels[LABEL.warmPool] = poolHash;
      const templateHash = sandboxLabels[LABEL.templateRefHash];
      if (templateHash !== undefined) labels[LABEL.templateRefHash] = templateHash;
    }
    labels[LABEL.createdBy] = createdBy(sandboxLabels[LABEL.createdBy]);
    if (propagatedLabels.length > 0)
      annotations[ANNOTATION.propagatedLabels] = propagatedLabels.sort().join(",");
    if (propagatedAnnotations.length > 0)
      annotations[ANNOTATION.propagatedAnnotations] = propagatedAnnotations.sort().join(",");
    return { labels, annotations };
  }

  /** Returns whether a pod of that name exists that another object controls. */
  private reconcilePod(sandbox: KubeObject): PodState {
    const { client } = this.$;
    const { namespace = "", name = "" } = meta(sandbox);
    const podName = this.podName(sandbox);
    const owned = client.list("pod", namespace).filter((pod) => isControlledBy(pod, sandbox));
    // The controller does not pick one: it reports MultiplePods and leaves them (A3).
    if (owned.length > 1) return "multiple";
    const existing = owned[0];
    if (isSuspended(sandbox)) {
      if (existing !== undefined && !isDeleting(existing))
        client.delete({ kind: "pod", namespace, name: meta(existing).name ?? "" });
      if (meta(sandbox).annotations?.[ANNOTATION.podName] !== undefined)
        client.mergePatch(
          { kind: "sandbox", namespace, name },
          {
            metadata: { annotations: { [ANNOTATION.podName]: null } },
          },
        );
      const other = client.get("pod", namespace, podName);
      return other !== undefined && !isControlledBy(other, sandbox) ? "notOwned" : "owned";
    }
    const { labels, annotations } = this.podLabelsAndAnnotations(sandbox);
    if (existing !== undefined) {
      // Only labels and annotations of an existing pod are re-synced, never its spec (A3).
      const current = meta(existing);
      // The pool label leaves the pod with the pool: an adopted sandbox's pod is no member.
      const stale =
        current.labels?.[LABEL.warmPool] !== undefined && labels[LABEL.warmPool] === undefined;
      const staleLabels: Record<string, null> = stale ? { [LABEL.warmPool]: null } : {};
      const wantLabels = Object.fromEntries(
        Object.entries({ ...current.labels, ...labels }).filter(
          ([key]) => !(stale && key === LABEL.warmPool),
        ),
      );
      const wantAnnotations = { ...current.annotations, ...annotations };
      if (
        !jsonEqual(wantLabels, current.labels ?? {}) ||
        !jsonEqual(wantAnnotations, current.annotations ?? {})
      )
        client.mergePatch(
          { kind: "pod", namespace, name: current.name ?? "" },
          {
            metadata: { labels: { ...labels, ...staleLabels }, annotations },
          },
        );
    } else {
      const clash = client.get("pod", namespace, podName);
      if (clash !== undefined)
        throw new Error(`pod ${podName} exists and is not owned by sandbox ${name}`);
      const podTemplate = record(spec(sandbox).podTemplate);
      const podSpec = clone(record(podTemplate.spec));
      const claimVolumes = list(spec(sandbox).volumeClaimTemplates).map((template) => {
        const volume = str(record(template.metadata).name) ?? "";
        return { name: volume, persistentVolumeClaim: { claimName: `${volume}-${name}` } };
      });
      const names = new Set(claimVolumes.map((volume) => volume.name));
      const volumes = [
        ...list(podSpec.volumes).filter((volume) => !names.has(str(volume.name) ?? "")),
        ...claimVolumes,
      ];
      if (volumes.length > 0) podSpec.volumes = volumes;
      client.create("pod", namespace, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: podName, labels, annotations, ownerReferences: [controllerRef(sandbox)] },
        spec: podSpec,
      });
    }
    if (meta(sandbox).annotations?.[ANNOTATION.podName] !== podName)
      client.mergePatch(
        { kind: "sandbox", namespace, name },
        {
          metadata: { annotations: { [ANNOTATION.podName]: podName } },
        },
      );
    return "owned";
  }

  private servicePorts(sandbox: KubeObject): KubeObject[] {
    const podSpec = record(record(spec(sandbox).podTemplate).spec);
    const containers = [
      ...list(podSpec.containers),
      ...list(podSpec.initContainers).filter((c) => c.restartPolicy === "Always"),
    ];
    const seen = new Map<string, KubeObject>();
    for (const container of containers) {
      for (const port of list(container.ports)) {
        const number = typeof port.containerPort === "number" ? port.containerPort : undefined;
        if (number === undefined) continue;
        const protocol = str(port.protocol) ?? "TCP";
        const key = `${String(number)}/${protocol}`;
        if (seen.has(key)) continue;
        seen.set(key, {
          name: str(port.name) ?? `p-${String(number)}-${protocol.toLowerCase()}`,
          port: number,
          protocol,
          targetPort: number,
        });
      }
    }
    return [...seen.values()].sort(
      (a, b) =>
        (a.port as number) - (b.port as number) ||
        String(a.protocol).localeCompare(String(b.protocol)),
    );
  }

  private reconcileService(sandbox: KubeObject): void {
    const { client } = this.$;
    const { namespace = "", name = "" } = meta(sandbox);
    const wanted = spec(sandbox).service;
    const owned = this.ownedService(sandbox);
    if (wanted === false && owned !== undefined && !isDeleting(owned)) {
      client.delete({ kind: "service", namespace, name });
      return;
    }
    if (wanted !== true || client.get("service", namespace, name) !== undefined) return;
    const hash = nameHash(name);
    client.create("service", namespace, {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name,
        labels: { [LABEL.nameHash]: hash },
        ownerReferences: [controllerRef(sandbox)],
      },
      spec: {
        clusterIP: "None",
        selector: { [LABEL.nameHash]: hash },
        ports: this.servicePorts(sandbox),
      },
    });
  }

  /** §8.3 expiry: Ready=False SandboxExpired first, then the Pod and Service go, then the policy. */
  private expire(sandbox: KubeObject, hooks: ReconcileHooks): void {
    const { client } = this.$;
    const { namespace = "", name = "" } = meta(sandbox);
    const view: SandboxView = {
      sandbox,
      pod: this.ownedPod(sandbox),
      service: this.ownedService(sandbox),
      expired: true,
      error: undefined,
      podNotOwned: false,
      multiplePods: false,
    };
    const ready = conditions(sandbox).find((c) => c.type === "Ready");
    if (ready?.reason !== "SandboxExpired") {
      this.writeStatus(sandbox, view);
      hooks.requeueAt(this.$.clock.now().getTime());
      return;
    }
    if (view.pod !== undefined && !isDeleting(view.pod))
      client.delete({ kind: "pod", namespace, name: meta(view.pod).name ?? "" });
    if (view.service !== undefined && !isDeleting(view.service))
      client.delete({ kind: "service", namespace, name });
    if (view.pod !== undefined || view.service !== undefined) return; // their removal requeues us
    if (spec(sandbox).shutdownPolicy === "Delete") {
      client.delete({ kind: "sandbox", namespace, name });
      return;
    }
    // Retain: status is reset to the conditions alone.
    const kept = { conditions: conditions(sandbox) };
    if (!jsonEqual(kept, status(sandbox)))
      client.mergePatch(
        { kind: "sandbox", namespace, name },
        {
          status: {
            conditions: kept.conditions,
            podIPs: null,
            nodeName: null,
            selector: null,
            service: null,
            serviceFQDN: null,
          },
        },
        "status",
      );
  }

  private writeStatus(sandbox: KubeObject, view: SandboxView): void {
    const { namespace = "", name = "" } = meta(sandbox);
    const generation = generationOf(sandbox);
    const now = timestamp(this.$.clock);
    const old = status(sandbox);
    let next: Condition[] = conditions(sandbox);
    const put = (computed: Omit<Condition, "lastTransitionTime" | "observedGeneration">): void => {
      next = setCondition(next, { ...computed, observedGeneration: generation }, now);
    };
    const drop = (type: string): void => {
      next = next.filter((c) => c.type !== type);
    };
    put(readyCondition(view));
    put(suspendedCondition(view));
    const scheduled = podScheduledCondition(view);
    if (scheduled === undefined) drop("PodScheduled");
    else put(scheduled);
    const finished = finishedCondition(view);
    if (finished !== undefined) put(finished);
    // Every condition carries the current generation (§8.2).
    next = next.map((c) => ({ ...c, observedGeneration: generation }));

    const patch: KubeObject = { conditions: next };
    if (!view.expired) {
      const ips = podIPs(view.pod);
      patch.podIPs = ips.length > 0 ? ips : null;
      const hash = nameHash(name);
      if (view.pod !== undefined) patch.selector = `${LABEL.nameHash}=${hash}`;
      const nodeName = view.pod === undefined ? undefined : str(record(view.pod.spec).nodeName);
      const readyNow = next.find((c) => c.type === "Ready")?.status === "True";
      // A change of nodeName alone waits until Ready is True (A3).
      if (view.pod === undefined) patch.nodeName = null;
      else if (
        nodeName !== undefined &&
        (readyNow || old.nodeName === undefined) &&
        podReady(view.pod)
      )
        patch.nodeName = nodeName;
      if (view.service !== undefined) {
        patch.service = name;
        patch.serviceFQDN = `${name}.${namespace}.svc.cluster.local`;
      } else {
        patch.service = null;
        patch.serviceFQDN = null;
      }
    }
    const merged = { ...old };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) Reflect.deleteProperty(merged, key);
      else merged[key] = value;
    }
    // Status is written only when it changes (A3); the store would drop a no-op anyway.
    if (jsonEqual(merged, old)) return;
    this.$.client.mergePatch({ kind: "sandbox", namespace, name }, { status: patch }, "status");
  }
}
