/**
 * Owner-reference garbage collection (§4.9, D4/D5). It runs asynchronously after store events, as
 * the real collector does, so callers observe dependents disappearing shortly after the owner.
 */
import type { RequestContext } from "./codec.ts";
import type { DeletionSystem } from "./deletion.ts";
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "./deletion.ts";
import type { KubeObject } from "./objects.ts";
import { meta } from "./objects.ts";
import type { ObjectRegistry } from "./objectRegistry.ts";
import type { ResourceRegistry, ResourceType } from "./resourceTypes.ts";
import type { ObjectStore } from "./store.ts";

interface Entry {
  resource: string;
  type: ResourceType;
  object: KubeObject;
}

const ownerUids = (object: KubeObject): string[] =>
  (meta(object).ownerReferences ?? []).map((ref) => ref.uid);

export class GarbageCollector {
  private scheduled: NodeJS.Immediate | undefined;
  private waiters: (() => void)[] = [];
  private readonly unsubscribe: () => void;

  constructor(
    private readonly $: {
      store: ObjectStore;
      types: ResourceRegistry;
      registry: ObjectRegistry;
      deletion: DeletionSystem;
    },
  ) {
    this.unsubscribe = $.store.subscribe(() => {
      this.schedule();
    });
  }

  /** Resolves once no collection pass is pending: every cascade the last writes started is done. */
  settled(): Promise<void> {
    if (this.scheduled === undefined) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.unsubscribe();
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Whether a collection pass is queued. */
  get busy(): boolean {
    return this.pending();
  }

  /** Whether a pass is queued; a sweep's own writes queue the next one. */
  private pending(): boolean {
    return this.scheduled !== undefined;
  }

  private schedule(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.sweep();
      if (!this.pending()) for (const waiter of this.waiters.splice(0)) waiter();
    });
  }

  private entries(): Entry[] {
    const result: Entry[] = [];
    for (const { resource, object } of this.$.store.entries()) {
      const [group = "", plural = ""] = resource.split("/");
      const type = this.$.types.types.find((t) => t.group === group && t.plural === plural);
      if (type !== undefined) result.push({ resource, type, object });
    }
    return result;
  }

  /** One pass; each write it makes schedules the next pass through the store subscription. */
  private sweep(): void {
    const entries = this.entries();
    const uids = new Set(entries.map((entry) => meta(entry.object).uid));
    const dependentsOf = (uid: string | undefined): Entry[] =>
      entries.filter((entry) => uid !== undefined && ownerUids(entry.object).includes(uid));
    for (const owner of entries) {
      const metadata = meta(owner.object);
      if (metadata.deletionTimestamp === undefined) continue;
      const finalizers = metadata.finalizers ?? [];
      if (finalizers.includes(ORPHAN_FINALIZER)) this.orphan(owner, dependentsOf(metadata.uid));
      else if (finalizers.includes(FOREGROUND_FINALIZER))
        this.foreground(owner, dependentsOf(metadata.uid), dependentsOf);
    }
    // The namespace controller's part: what lives in a deleted namespace is deleted too.
    const namespaces = new Set(
      entries
        .filter((entry) => entry.type.kind === "Namespace" && entry.type.group === "")
        .map((entry) => meta(entry.object).name),
    );
    for (const entry of entries) {
      const { namespace, deletionTimestamp } = meta(entry.object);
      if (deletionTimestamp !== undefined) continue;
      const namespaceGone = entry.type.namespaced && !namespaces.has(namespace);
      const owners = ownerUids(entry.object);
      const ownersGone = owners.length > 0 && !owners.some((uid) => uids.has(uid));
      if (!namespaceGone && !ownersGone) continue;
      this.attempt(() =>
        this.remove(
          entry,
          dependentsOf(meta(entry.object).uid).length > 0 ? "Foreground" : "Background",
        ),
      );
    }
  }

  private orphan(owner: Entry, dependents: Entry[]): void {
    const uid = meta(owner.object).uid;
    for (const dependent of dependents) {
      this.attempt(() => {
        const metadata = meta(dependent.object);
        metadata.ownerReferences = (metadata.ownerReferences ?? []).filter(
          (ref) => ref.uid !== uid,
        );
        if (metadata.ownerReferences.length === 0) delete metadata.ownerReferences;
        this.$.registry.commit(dependent.type, dependent.object);
      });
    }
    this.attempt(() => this.dropFinalizer(owner, ORPHAN_FINALIZER));
  }

  /** The owner stays until no dependent that blocks owner deletion is left (D5 foreground). */
  private foreground(
    owner: Entry,
    dependents: Entry[],
    dependentsOf: (uid: string | undefined) => Entry[],
  ): void {
    const uid = meta(owner.object).uid;
    for (const dependent of dependents) {
      if (meta(dependent.object).deletionTimestamp !== undefined) continue;
      const policy =
        dependentsOf(meta(dependent.object).uid).length > 0 ? "Foreground" : "Background";
      this.attempt(() => this.remove(dependent, policy));
    }
    const blocking = dependents.filter((dependent) => {
      const { namespace, name } = meta(dependent.object);
      if (this.$.store.get(dependent.resource, namespace, name ?? "") === undefined) return false;
      return (meta(dependent.object).ownerReferences ?? []).some(
        (ref) => ref.uid === uid && ref.blockOwnerDeletion === true,
      );
    });
    if (blocking.length === 0) this.attempt(() => this.dropFinalizer(owner, FOREGROUND_FINALIZER));
  }

  private dropFinalizer(entry: Entry, finalizer: string): void {
    const { namespace, name } = meta(entry.object);
    const current = this.$.store.get(entry.resource, namespace, name ?? "");
    if (current === undefined) return;
    const metadata = meta(current);
    metadata.finalizers = (metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.$.registry.commit(entry.type, current);
  }

  private remove(entry: Entry, propagationPolicy: "Foreground" | "Background"): void {
    const { namespace, name } = meta(entry.object);
    const context: RequestContext = { warnings: [], fieldValidation: "Ignore" };
    this.$.deletion.delete(
      { type: entry.type, version: entry.type.storageVersion, namespace },
      {
        name: name ?? "",
        options: {
          propagationPolicy,
          gracePeriodSeconds: undefined,
          preconditions: { uid: meta(entry.object).uid, resourceVersion: undefined },
        },
      },
      context,
    );
  }

  /** GC writes race with clients; a failed one is retried on the next pass its own events trigger. */
  private attempt(write: () => void): void {
    try {
      write();
    } catch {
      // Ignored on purpose: the next store event schedules another pass that re-reads the state.
    }
  }
}
