/**
 * The write paths of the API (§4.1, §4.4, §4.6): preconditions, metadata rules, schema, admission
 * and storage, in the order the real server runs them. Deletion lives in deletion.ts.
 */
import type { AdmissionHook, AdmissionRequest } from "./admission.ts";
import { DEFAULT_USER } from "./admission.ts";
import type { Clock } from "./clock.ts";
import type { RequestContext } from "./codec.ts";
import { admitSchema, fromStorage, toStorage } from "./codec.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  internalError,
  invalid,
  notFound,
  qualifiedKind,
  qualifiedResource,
} from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { clone, meta } from "./objects.ts";
import type { NameSuffix } from "./names.ts";
import { GENERATE_NAME_ATTEMPTS, generatedName, invalidNameMessage } from "./names.ts";
import {
  bumpGenerationOnChange,
  prepareCreate,
  prepareStatusUpdate,
  prepareUpdate,
} from "./metadataRules.ts";
import type { ResourceRegistry, ResourceType } from "./resourceTypes.ts";
import type { ObjectStore } from "./store.ts";

/** What every write needs besides its arguments. */
export interface RegistryResources {
  store: ObjectStore;
  types: ResourceRegistry;
  clock: Clock;
  admission: AdmissionHook[];
  nameSuffix: NameSuffix;
}

/** Where a write goes: the kind, the version the client spoke, and the object's coordinates. */
export interface Target {
  type: ResourceType;
  version: string;
  namespace: string | undefined;
}

export function resourceKey(type: ResourceType): string {
  return `${type.group}/${type.plural}`;
}

export class ObjectRegistry {
  constructor(private readonly $: RegistryResources) {}

  /** Runs the admission hooks, collecting their warnings; a hook denies by throwing. */
  admit(request: AdmissionRequest, context: RequestContext): void {
    const seen: AdmissionRequest = {
      ...request,
      userInfo: request.userInfo ?? context.userInfo ?? DEFAULT_USER,
      dryRun: context.dryRun === true,
    };
    for (const hook of this.$.admission) {
      const result = hook(seen);
      if (result?.warnings) context.warnings.push(...result.warnings);
      if (result?.deny) throw result.deny;
    }
  }

  private requireNamespace(target: Target, body: KubeObject): void {
    const metadata = meta(body);
    if (!target.type.namespaced) {
      delete metadata.namespace;
      return;
    }
    if (
      metadata.namespace !== undefined &&
      metadata.namespace !== "" &&
      metadata.namespace !== target.namespace
    ) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    metadata.namespace = target.namespace;
    const namespaces = this.$.types.namespaces();
    if (
      this.$.store.get(resourceKey(namespaces), undefined, target.namespace ?? "") === undefined
    ) {
      throw notFound(namespaces, target.namespace ?? "");
    }
  }

  /** POST: 201 with the stored object (returned in the request's version). */
  create(target: Target, body: KubeObject, context: RequestContext): KubeObject {
    const { type, version } = target;
    this.requireNamespace(target, body);
    const metadata = meta(body);
    if (metadata.resourceVersion !== undefined && metadata.resourceVersion !== "") {
      throw internalError("resourceVersion should not be set on objects to be created");
    }
    const subject = { subject: qualifiedKind(type), group: type.group, detailKind: type.kind };
    const generate = (metadata.name ?? "") === "" && (metadata.generateName ?? "") !== "";
    if (!generate && (metadata.name ?? "") === "") {
      throw invalid({ ...subject, name: "" }, [
        {
          reason: "FieldValueRequired",
          message: "Required value: name or generateName is required",
          field: "metadata.name",
        },
      ]);
    }
    for (let attempt = 1; ; attempt++) {
      const candidate = clone(body);
      if (generate)
        meta(candidate).name = generatedName(metadata.generateName ?? "", this.$.nameSuffix);
      const name = meta(candidate).name ?? "";
      const badName = invalidNameMessage(name);
      if (badName !== undefined) {
        throw invalid({ ...subject, name }, [
          { reason: "FieldValueInvalid", message: badName, field: "metadata.name" },
        ]);
      }
      let object = prepareCreate(type, candidate, this.$.clock);
      object = admitSchema(target, { object, old: undefined }, context);
      const stored = toStorage(type, object);
      this.admit(
        {
          operation: "CREATE",
          type,
          version,
          subresource: "",
          namespace: target.namespace,
          name,
          object: stored,
          oldObject: undefined,
        },
        context,
      );
      const existing = this.$.store.get(resourceKey(type), target.namespace, name);
      if (existing === undefined) {
        if (context.dryRun === true) return fromStorage(type, stored, version);
        return fromStorage(type, this.$.store.create(resourceKey(type), stored), version);
      }
      // A generated name that is taken is retried with a new suffix (K7 createWithGenerateNameRetry).
      if (!generate || attempt >= GENERATE_NAME_ATTEMPTS) {
        throw alreadyExists(type, name, meta(existing).deletionTimestamp !== undefined);
      }
    }
  }

  /** The stored object or the 404 of §3. */
  read(target: Target, name: string): KubeObject {
    const stored = this.$.store.get(resourceKey(target.type), target.namespace, name);
    if (stored === undefined) throw notFound(target.type, name);
    return stored;
  }

  /**
   * PUT (and the tail of every PATCH): preconditions, then the main-endpoint or `/status` rules.
   * `conditional: false` is how patches say a missing resourceVersion means "no precondition".
   */
  update(
    target: Target,
    request: { name: string; body: KubeObject; subresource: "" | "status"; conditional: boolean },
    context: RequestContext,
  ): KubeObject {
    const { type, version } = target;
    const { name, body, subresource } = request;
    const stored = this.read(target, name);
    const storedMeta = meta(stored);
    const bodyMeta = meta(body);
    if (bodyMeta.name !== undefined && bodyMeta.name !== name) {
      throw badRequest(
        `the name of the object (${bodyMeta.name}) does not match the name on the URL (${name})`,
      );
    }
    if (
      type.namespaced &&
      bodyMeta.namespace !== undefined &&
      bodyMeta.namespace !== "" &&
      bodyMeta.namespace !== target.namespace
    ) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    const rv = bodyMeta.resourceVersion ?? "";
    if (rv === "" && request.conditional && type.custom !== undefined) {
      // Custom resources do not allow unconditional update (K5 AllowUnconditionalUpdate).
      throw invalid(
        { subject: qualifiedResource(type), group: type.group, detailKind: type.plural, name },
        [
          {
            reason: "FieldValueInvalid",
            message: "Invalid value: 0x0: must be specified for an update",
            field: "metadata.resourceVersion",
          },
        ],
      );
    }
    if (rv !== "" && rv !== storedMeta.resourceVersion) throw conflict(type, name);
    if (bodyMeta.uid !== undefined && bodyMeta.uid !== "" && bodyMeta.uid !== storedMeta.uid) {
      throw conflict(
        type,
        name,
        `Precondition failed: UID in precondition: ${bodyMeta.uid}, UID in object meta: ${storedMeta.uid ?? ""}`,
      );
    }
    const storedInVersion = fromStorage(type, stored, version);
    const incoming = { ...body, metadata: { ...bodyMeta, name, namespace: storedMeta.namespace } };
    let object =
      subresource === "status"
        ? prepareStatusUpdate(storedInVersion, incoming)
        : prepareUpdate(type, storedInVersion, incoming);
    if (storedMeta.deletionTimestamp !== undefined) {
      const added = (meta(object).finalizers ?? []).filter(
        (f) => !(storedMeta.finalizers ?? []).includes(f),
      );
      if (added.length > 0) {
        throw invalid(
          { subject: qualifiedKind(type), group: type.group, detailKind: type.kind, name },
          [
            {
              reason: "FieldValueForbidden",
              // Go's %#v of the []string, as ValidateObjectMetaUpdate prints it.
              message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
              field: "metadata.finalizers",
            },
          ],
        );
      }
    }
    object = admitSchema(target, { object, old: storedInVersion }, context);
    // Defaulting may have filled fields, so generation is decided on the admitted object.
    if (subresource === "") bumpGenerationOnChange(type, storedInVersion, object);
    const next = toStorage(type, object);
    this.admit(
      {
        operation: "UPDATE",
        type,
        version,
        subresource,
        namespace: target.namespace,
        name,
        object: next,
        oldObject: stored,
      },
      context,
    );
    if (context.dryRun === true)
      return fromStorage(
        type,
        { ...next, metadata: { ...meta(next), resourceVersion: storedMeta.resourceVersion } },
        version,
      );
    return fromStorage(type, this.commit(type, next), version);
  }

  /**
   * Stores an already-prepared object. An object with a deletionTimestamp whose finalizers are now
   * empty is removed instead, and the DELETED event follows (K7 ShouldDeleteDuringUpdate) — unless
   * it is in a grace period (a terminating pod), which only the kubelet ends.
   */
  commit(type: ResourceType, object: KubeObject): KubeObject {
    const metadata = meta(object);
    const grace = metadata.deletionGracePeriodSeconds ?? 0;
    if (
      metadata.deletionTimestamp !== undefined &&
      grace === 0 &&
      (metadata.finalizers ?? []).length === 0
    ) {
      const updated = this.$.store.update(resourceKey(type), object);
      return this.$.store.remove(resourceKey(type), updated);
    }
    return this.$.store.update(resourceKey(type), object);
  }
}
