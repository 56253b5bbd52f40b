/**
 * How the controller and the kubelet talk to the API: in-process, through the same registry and
 * deletion paths an HTTP client reaches, so resourceVersion, generation, admission, events and
 * garbage collection behave exactly as for any other writer.
 */
import type { RequestContext } from "./codec.ts";
import type { DeletionSystem, PropagationPolicy } from "./deletion.ts";
import type { KubeObject } from "./objects.ts";
import { meta } from "./objects.ts";
import type { ObjectRegistry } from "./objectRegistry.ts";
import { resourceKey } from "./objectRegistry.ts";
import { mergePatch } from "./patches.ts";
import type { ResourceRegistry, ResourceType } from "./resourceTypes.ts";
import type { ObjectStore } from "./store.ts";

/** The kinds part 2 works with, by group and plural. */
export const KINDS = {
  pod: { group: "", plural: "pods" },
  service: { group: "", plural: "services" },
  pvc: { group: "", plural: "persistentvolumeclaims" },
  secret: { group: "", plural: "secrets" },
  event: { group: "", plural: "events" },
  sandbox: { group: "agents.x-k8s.io", plural: "sandboxes" },
  claim: { group: "extensions.agents.x-k8s.io", plural: "sandboxclaims" },
  template: { group: "extensions.agents.x-k8s.io", plural: "sandboxtemplates" },
  pool: { group: "extensions.agents.x-k8s.io", plural: "sandboxwarmpools" },
  networkPolicy: { group: "networking.k8s.io", plural: "networkpolicies" },
} as const;

export type KindName = keyof typeof KINDS;

/** One object: its kind and coordinates. */
export interface ObjectRef {
  kind: KindName;
  namespace: string;
  name: string;
}

export class InProcessClient {
  private readonly byName: Record<KindName, ResourceType>;

  constructor(
    private readonly $: {
      store: ObjectStore;
      types: ResourceRegistry;
      registry: ObjectRegistry;
      deletion: DeletionSystem;
    },
  ) {
    const find = (kind: KindName): ResourceType => {
      const { group, plural } = KINDS[kind];
      const type = $.types.types.find((t) => t.group === group && t.plural === plural);
      if (type === undefined) throw new Error(`kind ${group}/${plural} is not served`);
      return type;
    };
    this.byName = {
      pod: find("pod"),
      service: find("service"),
      pvc: find("pvc"),
      secret: find("secret"),
      event: find("event"),
      sandbox: find("sandbox"),
      claim: find("claim"),
      template: find("template"),
      pool: find("pool"),
      networkPolicy: find("networkPolicy"),
    };
  }

  /** The store key (`<group>/<plural>`) of a kind, to match store events against. */
  resource(kind: KindName): string {
    return resourceKey(this.byName[kind]);
  }

  private context(): RequestContext {
    return { warnings: [], fieldValidation: "Ignore" };
  }

  private target(
    kind: KindName,
    namespace: string,
  ): { type: ResourceType; version: string; namespace: string } {
    const type = this.byName[kind];
    return { type, version: type.storageVersion, namespace };
  }

  get(kind: KindName, namespace: string, name: string): KubeObject | undefined {
    return this.$.store.get(this.resource(kind), namespace, name);
  }

  list(kind: KindName, namespace: string | undefined): KubeObject[] {
    return this.$.store.list(this.resource(kind), namespace);
  }

  create(kind: KindName, namespace: string, body: KubeObject): KubeObject {
    return this.$.registry.create(this.target(kind, namespace), body, this.context());
  }

  /**
   * A merge patch without a resourceVersion lock, or with one when the patch carries
   * `metadata.resourceVersion` (a stale one answers 409, as over HTTP).
   */
  mergePatch(
    { kind, namespace, name }: ObjectRef,
    patch: KubeObject,
    subresource: "" | "status" = "",
  ): KubeObject {
    const target = this.target(kind, namespace);
    const current = this.$.registry.read(target, name);
    const merged = mergePatch(current, patch) as KubeObject;
    const lock = meta(patch).resourceVersion;
    meta(merged).resourceVersion = typeof lock === "string" ? lock : meta(current).resourceVersion;
    return this.$.registry.update(
      target,
      { name, body: merged, subresource, conditional: false },
      this.context(),
    );
  }

  /** A full update with the object's resourceVersion as an optimistic lock. */
  update(kind: KindName, namespace: string, object: KubeObject): KubeObject {
    return this.$.registry.update(
      this.target(kind, namespace),
      { name: meta(object).name ?? "", body: object, subresource: "", conditional: true },
      this.context(),
    );
  }

  delete(
    { kind, namespace, name }: ObjectRef,
    options: { propagationPolicy?: PropagationPolicy; gracePeriodSeconds?: number } = {},
  ): void {
    this.$.deletion.delete(
      this.target(kind, namespace),
      {
        name,
        options: {
          propagationPolicy: options.propagationPolicy,
          gracePeriodSeconds: options.gracePeriodSeconds,
          preconditions: { uid: undefined, resourceVersion: undefined },
        },
      },
      this.context(),
    );
  }

  /**
   * Ends a terminating pod's grace period: what the kubelet's final zero-grace delete does. The
   * object goes once no finalizer holds it.
   */
  finishTermination(namespace: string, name: string): void {
    const type = this.byName.pod;
    const current = this.get("pod", namespace, name);
    if (current === undefined) return;
    meta(current).deletionGracePeriodSeconds = 0;
    this.$.registry.commit(type, current);
  }
}
