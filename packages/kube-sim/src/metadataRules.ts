/**
 * The metadata invariants of §2, as pure functions from (stored, incoming) to the object to store.
 * The registry calls them after preconditions passed and before schema validation and admission.
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "./clock.ts";
import { timestamp } from "./clock.ts";
import type { KubeObject } from "./objects.ts";
import { clone, content, jsonEqual, meta } from "./objects.ts";
import type { ResourceType } from "./resourceTypes.ts";

/** Fields the server owns; client values for them are dropped on update (K7 BeforeUpdate). */
const SERVER_OWNED = [
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
] as const;

/** The object as create stores it: fresh uid and timestamps, generation 1, no status where it is a subresource. */
export function prepareCreate(type: ResourceType, body: KubeObject, clock: Clock): KubeObject {
  const object = clone(body);
  if (type.statusSubresource) delete object.status;
  const metadata = meta(object);
  for (const field of SERVER_OWNED) Reflect.deleteProperty(metadata, field);
  delete metadata.resourceVersion;
  delete metadata.managedFields;
  metadata.uid = randomUUID();
  metadata.creationTimestamp = timestamp(clock);
  if (type.tracksGeneration) metadata.generation = 1;
  return object;
}

/**
 * The object as an update of the main endpoint stores it: server-owned metadata kept, status kept
 * from storage where it is a subresource, generation + 1 only when something outside metadata
 * (and outside status, for those kinds) changed.
 */
export function prepareUpdate(
  type: ResourceType,
  stored: KubeObject,
  body: KubeObject,
): KubeObject {
  const object = clone(body);
  if (type.statusSubresource) {
    if (stored.status === undefined) delete object.status;
    else object.status = clone(stored.status);
  }
  const metadata = meta(object);
  const storedMeta = meta(stored);
  const target: Record<string, unknown> = metadata;
  for (const field of SERVER_OWNED) {
    if (storedMeta[field] === undefined) Reflect.deleteProperty(target, field);
    else target[field] = storedMeta[field];
  }
  delete metadata.managedFields;
  bumpGenerationOnChange(type, stored, object);
  return object;
}

/** Sets generation to stored + 1 when the non-metadata content differs (K5 PrepareForUpdate). */
export function bumpGenerationOnChange(
  type: ResourceType,
  stored: KubeObject,
  object: KubeObject,
): void {
  if (!type.tracksGeneration) return;
  const before = content(stored, type.statusSubresource);
  const after = content(object, type.statusSubresource);
  const generation = meta(stored).generation ?? 1;
  meta(object).generation = jsonEqual(before, after) ? generation : generation + 1;
}

/** A `/status` write: everything but `.status` comes from storage; generation never moves (K6). */
export function prepareStatusUpdate(stored: KubeObject, body: KubeObject): KubeObject {
  const object = clone(stored);
  if (body.status === undefined) delete object.status;
  else object.status = clone(body.status);
  return object;
}
