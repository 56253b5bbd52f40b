/**
 * DELETE (§4.9): DeleteOptions, the early precondition check, finalizers and deletionTimestamp,
 * propagation finalizers, and graceful deletion of running pods.
 */
import type { RequestContext } from "./codec.ts";
import { fromStorage } from "./codec.ts";
import { timestamp } from "./clock.ts";
import type { Clock } from "./clock.ts";
import type { StatusCause } from "./errors.ts";
import { deletePreconditionConflict, invalidOptions } from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { isObject, meta } from "./objects.ts";
import { queryFlag } from "./queryFlags.ts";
import type { ObjectRegistry, Target } from "./objectRegistry.ts";
import { resourceKey } from "./objectRegistry.ts";
import type { ObjectStore } from "./store.ts";

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface DeleteOptions {
  propagationPolicy: PropagationPolicy | undefined;
  gracePeriodSeconds: number | undefined;
  preconditions: { uid: string | undefined; resourceVersion: string | undefined };
}

export const FOREGROUND_FINALIZER = "foregroundDeletion";
export const ORPHAN_FINALIZER = "orphan";

function isPropagationPolicy(value: unknown): value is PropagationPolicy {
  return value === "Orphan" || value === "Background" || value === "Foreground";
}

/**
 * The deprecated `orphanDependents` (the Python client still offers it): true orphans, false
 * deletes dependents in the background (K7 `deletionFinalizersForGarbageCollection`).
 */
function orphanDependents(
  body: Record<string, unknown>,
  query: URLSearchParams,
): boolean | undefined {
  if (typeof body.orphanDependents === "boolean") return body.orphanDependents;
  return query.has("orphanDependents") ? queryFlag(query, "orphanDependents") : undefined;
}

/**
 * The propagation policy, validated as the handler does before anything else: a failure is 422
 * Invalid on the `DeleteOptions.meta.k8s.io` kind (K10 `ValidateDeleteOptions`, K16).
 */
function propagation(value: unknown, orphan: boolean | undefined): PropagationPolicy | undefined {
  const set = value !== undefined && value !== null && value !== "";
  const causes: StatusCause[] = [];
  if (set && orphan !== undefined)
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(value)}: orphanDependents and deletionPropagation cannot be both set`,
      field: "propagationPolicy",
    });
  if (set && !isPropagationPolicy(value))
    causes.push({
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
      field: "propagationPolicy",
    });
  if (causes.length > 0) throw invalidOptions("DeleteOptions", causes);
  if (isPropagationPolicy(value)) return value;
  return orphan === undefined ? undefined : orphan ? "Orphan" : "Background";
}

/** DeleteOptions from the JSON body and the query; the body wins where both give a field (K10). */
export function parseDeleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const options = isObject(body) ? body : {};
  const preconditions = isObject(options.preconditions) ? options.preconditions : {};
  const grace = options.gracePeriodSeconds ?? query.get("gracePeriodSeconds") ?? undefined;
  return {
    propagationPolicy: propagation(
      options.propagationPolicy ?? query.get("propagationPolicy") ?? undefined,
      orphanDependents(options, query),
    ),
    gracePeriodSeconds: grace === undefined ? undefined : Number(grace),
    preconditions: {
      uid: typeof preconditions.uid === "string" ? preconditions.uid : undefined,
      resourceVersion:
        typeof preconditions.resourceVersion === "string"
          ? preconditions.resourceVersion
          : undefined,
    },
  };
}

/** What a DELETE did: removed at once, or marked and left for finalizers or the kubelet. */
export type DeleteOutcome =
  { kind: "removed"; object: KubeObject } | { kind: "marked"; object: KubeObject };

function isRunningPod(object: KubeObject): boolean {
  const spec = isObject(object.spec) ? object.spec : {};
  const status = isObject(object.status) ? object.status : {};
  const terminal = status.phase === "Succeeded" || status.phase === "Failed";
  return typeof spec.nodeName === "string" && spec.nodeName !== "" && !terminal;
}

export class DeletionSystem {
  constructor(private readonly $: { store: ObjectStore; registry: ObjectRegistry; clock: Clock }) {}

  /** Performs a store write unless the request is a dry run, which answers what would be stored. */
  private write(
    context: RequestContext,
    perform: () => KubeObject,
    planned: KubeObject,
  ): KubeObject {
    return context.dryRun === true ? planned : perform();
  }

  delete(
    target: Target,
    request: { name: string; options: DeleteOptions },
    context: RequestContext,
  ): DeleteOutcome {
    const { name, options } = request;
    const { type, version } = target;
    const stored = this.$.registry.read(target, name);
    const metadata = meta(stored);
    const { uid, resourceVersion } = options.preconditions;
    // The early check of BeforeDelete names the Kind, not the plural (§3, K16).
    if (uid !== undefined && uid !== metadata.uid) {
      throw deletePreconditionConflict(
        type,
        name,
        `the UID in the precondition (${uid}) does not match the UID in record (${metadata.uid ?? ""}). The object might have been deleted and then recreated`,
      );
    }
    if (resourceVersion !== undefined && resourceVersion !== metadata.resourceVersion) {
      throw deletePreconditionConflict(
        type,
        name,
        `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${metadata.resourceVersion ?? ""}). The object might have been modified`,
      );
    }
    this.$.registry.admit(
      {
        operation: "DELETE",
        type,
        version,
        subresource: "",
        namespace: target.namespace,
        name,
        object: undefined,
        oldObject: stored,
      },
      context,
    );
    if (metadata.deletionTimestamp !== undefined)
      return { kind: "marked", object: fromStorage(type, stored, version) };

    const finalizers = [...(metadata.finalizers ?? [])];
    const addFinalizer = (finalizer: string): void => {
      if (!finalizers.includes(finalizer)) finalizers.push(finalizer);
    };
    switch (options.propagationPolicy) {
      case "Foreground":
        addFinalizer(FOREGROUND_FINALIZER);
        break;
      case "Orphan":
        addFinalizer(ORPHAN_FINALIZER);
        break;
      case "Background":
      case undefined:
        break;
    }
    const key = resourceKey(type);
    const persisted = (kind: "marked" | "removed") => ({
      kind,
      object: fromStorage(
        type,
        this.write(
          context,
          () =>
            kind === "removed"
              ? this.$.store.remove(key, stored)
              : this.$.store.update(key, stored),
          stored,
        ),
        version,
      ),
    });
    if (
      type.kind === "Pod" &&
      type.group === "" &&
      isRunningPod(stored) &&
      options.gracePeriodSeconds !== 0
    ) {
      // A scheduled, running pod terminates gracefully: the kubelet removes it later (K17).
      const spec = isObject(stored.spec) ? stored.spec : {};
      const fromSpec =
        typeof spec.terminationGracePeriodSeconds === "number"
          ? spec.terminationGracePeriodSeconds
          : 30;
      const grace = options.gracePeriodSeconds ?? fromSpec;
      metadata.deletionTimestamp = timestamp({
        now: () => new Date(this.$.clock.now().getTime() + grace * 1000),
      });
      metadata.deletionGracePeriodSeconds = grace;
      // Graceful deletion moves generation too (K16 BeforeDelete).
      if (type.tracksGeneration) metadata.generation = (metadata.generation ?? 1) + 1;
      metadata.finalizers = finalizers.length > 0 ? finalizers : undefined;
      if (metadata.finalizers === undefined) delete metadata.finalizers;
      return persisted("marked");
    }
    if (finalizers.length === 0) return persisted("removed");
    metadata.finalizers = finalizers;
    metadata.deletionTimestamp = timestamp(this.$.clock);
    metadata.deletionGracePeriodSeconds = 0;
    // The first time deletionTimestamp is set, generation moves (K7 markAsDeleting).
    if (type.tracksGeneration) metadata.generation = (metadata.generation ?? 1) + 1;
    return persisted("marked");
  }
}
