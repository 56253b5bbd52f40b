/**
 * The object store: every kind's objects, one global resourceVersion counter (like the etcd
 * revision, §2), a bounded event history for watches (§4.8) and the fan-out to live watchers.
 * It applies no API semantics; the write paths decide what to store.
 */
import type { KubeObject } from "./objects.ts";
import { clone, jsonEqual, meta } from "./objects.ts";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: EventType;
  /** `<group>/<plural>` of the object's kind. */
  resource: string;
  revision: number;
  object: KubeObject;
  /** The state before the write, so filtered watches can see objects leave or enter a selector. */
  previous: KubeObject | undefined;
}

export type StoreListener = (event: StoreEvent) => void;

/** Events older than the window are compacted away, like etcd's history. */
export const DEFAULT_HISTORY_WINDOW = 1000;

function keyOf(object: KubeObject): string {
  const { namespace, name } = meta(object);
  return `${namespace ?? ""}/${name ?? ""}`;
}

export class ObjectStore {
  private revision = 0;
  private compacted = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: StoreEvent[] = [];
  private readonly listeners = new Set<StoreListener>();

  constructor(private readonly historyWindow = DEFAULT_HISTORY_WINDOW) {}

  /** The current global resourceVersion (what a list reports). */
  get currentRevision(): number {
    return this.revision;
  }

  /** The newest revision no longer in the history; watches from before it get 410 Expired. */
  get compactedRevision(): number {
    return this.compacted;
  }

  private bucket(resource: string): Map<string, KubeObject> {
    let bucket = this.objects.get(resource);
    if (bucket === undefined) {
      bucket = new Map();
      this.objects.set(resource, bucket);
    }
    return bucket;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.objects.get(resource)?.get(`${namespace ?? ""}/${name}`);
    return found === undefined ? undefined : clone(found);
  }

  /** Objects of a kind, optionally in one namespace, in namespace/name order like etcd keys. */
  list(resource: string, namespace: string | undefined): KubeObject[] {
    const bucket = this.objects.get(resource);
    if (bucket === undefined) return [];
    return [...bucket.entries()]
      .filter(([, object]) => namespace === undefined || meta(object).namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => clone(object));
  }

  /** Every object of every kind, for the garbage collector. */
  *entries(): Generator<{ resource: string; object: KubeObject }> {
    for (const [resource, bucket] of this.objects) {
      for (const object of bucket.values()) yield { resource, object: clone(object) };
    }
  }

  /** Stores a new object at the next revision; the caller has checked the name is free. */
  create(resource: string, object: KubeObject): KubeObject {
    const stored = clone(object);
    meta(stored).resourceVersion = String(++this.revision);
    this.bucket(resource).set(keyOf(stored), stored);
    this.emit({
      type: "ADDED",
      resource,
      revision: this.revision,
      object: stored,
      previous: undefined,
    });
    return clone(stored);
  }

  /**
   * Replaces an existing object. A write that leaves it identical stores nothing: no new
   * resourceVersion and no event (the no-op rule of §2, K8).
   */
  update(resource: string, object: KubeObject): KubeObject {
    const bucket = this.bucket(resource);
    const key = keyOf(object);
    const previous = bucket.get(key);
    if (previous === undefined) throw new Error(`update of a missing object ${resource} ${key}`);
    const next = clone(object);
    meta(next).resourceVersion = meta(previous).resourceVersion;
    if (jsonEqual(next, previous)) return clone(previous);
    meta(next).resourceVersion = String(++this.revision);
    bucket.set(key, next);
    this.emit({ type: "MODIFIED", resource, revision: this.revision, object: next, previous });
    return clone(next);
  }

  /** Removes an object; the DELETED event carries its last state stamped with the new revision. */
  remove(resource: string, object: KubeObject): KubeObject {
    const bucket = this.bucket(resource);
    const key = keyOf(object);
    const previous = bucket.get(key);
    if (previous === undefined) throw new Error(`removal of a missing object ${resource} ${key}`);
    bucket.delete(key);
    const last = clone(object);
    meta(last).resourceVersion = String(++this.revision);
    this.emit({ type: "DELETED", resource, revision: this.revision, object: last, previous });
    return clone(last);
  }

  /** Events after `revision`, or `undefined` when part of that range was compacted. */
  eventsSince(revision: number): StoreEvent[] | undefined {
    if (revision < this.compacted) return undefined;
    return this.history.filter((event) => event.revision > revision);
  }

  /** Drops history up to `revision` (default: all of it), as etcd compaction does. */
  compact(revision = this.revision): void {
    while (this.history.length > 0 && (this.history[0]?.revision ?? 0) <= revision)
      this.history.shift();
    this.compacted = Math.max(this.compacted, revision);
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length > this.historyWindow) {
      const dropped = this.history.shift();
      if (dropped !== undefined) this.compacted = dropped.revision;
    }
    for (const listener of [...this.listeners]) listener(event);
  }
}
