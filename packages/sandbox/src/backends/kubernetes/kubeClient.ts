/**
 * The wrapper: the one place Berth talks to a Kubernetes API server (spec/kubernetes.md §2,
 * §11). It is built once from a kubeconfig or the in-cluster service account and offers the few
 * verbs the backend uses, each of which:
 *
 * - spends the caller's Operation (one deadline per operation) and is bounded by the
 *   per-request timeout; an operation whose caller aborted or whose deadline passed sends
 *   nothing;
 * - says which patch it sends — JSON Patch or merge patch, chosen per call; never strategic
 *   merge, never server-side apply;
 * - fails only with a KubeError (kubeErrors.ts), normalised in one function.
 *
 * It never retries (kubeRetry.ts does, for callers that may) and never watches: every wait in
 * the backend is a poll.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  Observable,
  PatchStrategy,
  V1DeleteOptions,
  V1Preconditions,
  type V1Secret,
  type ConfigurationOptions,
  type RequestContext,
  type ResponseContext,
} from "@kubernetes/client-node";
import { CREATE_ONLY_ANNOTATIONS, jsonPointerSegment } from "./berthKeys.ts";
import { loadKubeConfig, KubeConfigError, type KubeConfigSource } from "./kubeConfig.ts";
import { ReusedConnections } from "./reusedConnections.ts";
import { KubeError, normalizeKubeError, unreadableAnswer, type KubeRequest } from "./kubeErrors.ts";
import {
  kubeListSchema,
  kubeObjectSchema,
  claimSchema,
  podSchema,
  secretSchema,
  type ClaimReading,
  type SecretReading,
  type PodReading,
  type CustomKind,
  type JsonValue,
  type KubeObject,
} from "./kubeObjects.ts";
import { startOperation, type Operation, type OperationOptions } from "./operation.ts";

/** Spec §2: 30 s unless configured; never below 1 s, never disabled. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const MIN_REQUEST_TIMEOUT_MS = 1_000;

/** One RFC 6902 operation, in the shapes the backend sends. */
export type JsonPatchOperation =
  | { readonly op: "test" | "add" | "replace"; readonly path: string; readonly value: JsonValue }
  | { readonly op: "remove"; readonly path: string };

/** A patch and its content type, always chosen explicitly by the caller. */
export type KubePatch =
  /** RFC 7386 (`application/merge-patch+json`): keys merge, `null` deletes. */
  | { readonly type: "merge"; readonly body: { readonly [key: string]: JsonValue } }
  /** RFC 6902 (`application/json-patch+json`): a failed `test` is a 422, patch_not_applied. */
  | { readonly type: "json"; readonly operations: readonly JsonPatchOperation[] };

export interface KubeClientOptions {
  readonly source: KubeConfigSource;
  /** Overrides the kubeconfig context's namespace. */
  readonly namespace?: string | undefined;
  /** Bound on each request (connect, credentials, answer); default 30 000, at least 1 000. */
  readonly requestTimeoutMs?: number | undefined;
}

/** One named object of a kind, in the client's namespace. */
export interface ObjectRef {
  readonly kind: CustomKind;
  readonly name: string;
}

/** Preconditions a DELETE is conditional on (a 409 when the object no longer matches). */
export interface DeletePreconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
  /**
   * What becomes of the objects it owns: `Orphan` keeps them (their owner reference goes),
   * `Background` (the API's default for custom kinds) deletes them after it.
   */
  readonly propagationPolicy?: "Orphan" | "Background";
}

/** A patch that would rewrite a create-only annotation (berthKeys.ts); refused unsent. */
export class CreateOnlyAnnotationPatchError extends Error {
  override readonly name = "CreateOnlyAnnotationPatchError";
  constructor(
    readonly objectName: string,
    readonly key: string,
  ) {
    super(`refusing to patch ${objectName}: the patch touches ${key}, which only a create writes`);
  }
}

export class KubeClient {
  readonly namespace: string;
  readonly server: string;
  /** The kubeconfig's name for the cluster (kubeIsolationOf reads it). */
  readonly cluster: string;
  readonly requestTimeoutMs: number;
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;
  /** One keep-alive connection pool for every request this client sends (reusedConnections.ts). */
  readonly #connections = new ReusedConnections();

  /**
   * Builds the client; contacts nothing.
   *
   * @throws KubeConfigError for a configuration that cannot work (no retry will change it)
   */
  constructor(options: KubeClientOptions) {
    const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    if (!Number.isSafeInteger(timeout) || timeout < MIN_REQUEST_TIMEOUT_MS) {
      throw new KubeConfigError(
        `requestTimeoutMs must be a whole number of ms, at least ${String(MIN_REQUEST_TIMEOUT_MS)} (got ${String(timeout)})`,
      );
    }
    const loaded = loadKubeConfig(options.source, options.namespace);
    this.namespace = loaded.namespace;
    this.server = loaded.server;
    this.cluster = loaded.cluster;
    this.requestTimeoutMs = timeout;
    this.#custom = loaded.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#core = loaded.kubeConfig.makeApiClient(CoreV1Api);
  }

  /** Starts an operation: the one deadline its requests (and a caller's retries) all spend. */
  operation(options: OperationOptions): Operation {
    return startOperation(options);
  }

  /** POST the object (`application/json`); a 409 is `conflict` with reason AlreadyExists. */
  async create(op: Operation, kind: CustomKind, body: KubeObject): Promise<KubeObject> {
    const request: KubeRequest = {
      verb: "create",
      resource: kind.plural,
      namespace: this.namespace,
    };
    const answer = await this.#send(op, request, (options) =>
      this.#custom.createNamespacedCustomObject({ ...this.#at(kind), body }, options),
    );
    return this.#object(request, answer);
  }

  async get(op: Operation, target: ObjectRef): Promise<KubeObject> {
    const { kind, name } = target;
    const request: KubeRequest = {
      verb: "get",
      resource: kind.plural,
      namespace: this.namespace,
      name,
    };
    const answer = await this.#send(op, request, (options) =>
      this.#custom.getNamespacedCustomObject({ ...this.#at(kind), name }, options),
    );
    return this.#object(request, answer);
  }

  /** GET one pod (the core kind a box runs as): read only, to find and trust its address. */
  async getPod(op: Operation, name: string): Promise<PodReading> {
    const request: KubeRequest = { verb: "get", resource: "pods", namespace: this.namespace, name };
    const answer = await this.#send(op, request, (options) =>
      this.#core.readNamespacedPod({ name, namespace: this.namespace }, options),
    );
    const parsed = podSchema.safeParse(answer);
    if (!parsed.success) throw unreadableAnswer(request, "a pod Berth cannot read");
    const { metadata, status } = parsed.data;
    const scheduled = status?.conditions?.find((condition) => condition.type === "PodScheduled");
    return {
      name: metadata.name,
      uid: metadata.uid,
      deleting: metadata.deletionTimestamp != null,
      phase: status?.phase,
      podIP: status?.podIP === "" ? undefined : status?.podIP,
      unschedulable:
        scheduled?.status === "False" && scheduled.reason === "Unschedulable"
          ? (scheduled.message ?? "unschedulable")
          : undefined,
      waiting: (status?.containerStatuses ?? []).flatMap((container) => {
        const reason = container.state?.waiting?.reason;
        return reason === undefined ? [] : [{ reason, message: container.state?.waiting?.message }];
      }),
    };
  }

  /**
   * POST a Secret (the box's token, owned by its Sandbox). The body is built by the caller; a 409
   * is `conflict` with reason AlreadyExists. Secret data never appears in a message.
   */
  async createSecret(op: Operation, body: V1Secret): Promise<SecretReading> {
    const request: KubeRequest = { verb: "create", resource: "secrets", namespace: this.namespace };
    const answer = await this.#send(op, request, (options) =>
      this.#core.createNamespacedSecret({ namespace: this.namespace, body }, options),
    );
    return secretReading(request, answer);
  }

  /** GET a Secret: whose it is, and its data (base64, as the API keeps it). */
  async getSecret(op: Operation, name: string): Promise<SecretReading> {
    const request: KubeRequest = {
      verb: "get",
      resource: "secrets",
      namespace: this.namespace,
      name,
    };
    const answer = await this.#send(op, request, (options) =>
      this.#core.readNamespacedSecret({ name, namespace: this.namespace }, options),
    );
    return secretReading(request, answer);
  }

  /** GET one PersistentVolumeClaim: whose it is (its controller) decides whether a box uses it. */
  async getClaim(op: Operation, name: string): Promise<ClaimReading> {
    const request: KubeRequest = {
      verb: "get",
      resource: "persistentvolumeclaims",
      namespace: this.namespace,
      name,
    };
    const answer = await this.#send(op, request, (options) =>
      this.#core.readNamespacedPersistentVolumeClaim({ name, namespace: this.namespace }, options),
    );
    const parsed = claimSchema.safeParse(answer);
    if (!parsed.success) throw unreadableAnswer(request, "a claim Berth cannot read");
    const controller = parsed.data.metadata.ownerReferences?.find((ref) => ref.controller === true);
    return {
      name: parsed.data.metadata.name,
      uid: parsed.data.metadata.uid,
      controllerUid: controller?.uid,
    };
  }

  /** One GET of the collection (no watch), optionally narrowed by a label selector. */
  async list(
    op: Operation,
    kind: CustomKind,
    selector: { readonly labelSelector?: string } = {},
  ): Promise<KubeObject[]> {
    const request: KubeRequest = { verb: "list", resource: kind.plural, namespace: this.namespace };
    const answer = await this.#send(op, request, (options) =>
      this.#custom.listNamespacedCustomObject(
        {
          ...this.#at(kind),
          ...(selector.labelSelector === undefined
            ? {}
            : { labelSelector: selector.labelSelector }),
        },
        options,
      ),
    );
    const parsed = kubeListSchema.safeParse(answer);
    if (!parsed.success) throw unreadableAnswer(request, "a list Berth cannot read");
    return parsed.data.items;
  }

  /**
   * PATCH with the content type of `patch.type`. A patch that touches a create-only annotation
   * is refused before anything is sent.
   */
  async patch(op: Operation, target: ObjectRef, patch: KubePatch): Promise<KubeObject> {
    refuseCreateOnlyKeys(target.name, patch);
    return this.#patch(op, target, patch);
  }

  /**
   * The one write of a pooled box's allocation annotations (warmClaim.ts): a warm-pool member is
   * made by the pool's controller without them, so the claim that adopts it writes them once,
   * as a merge patch under the resourceVersion it read them absent at — a compare-and-swap no
   * other writer can slip a rewrite through.
   */
  async writeAllocation(
    op: Operation,
    target: ObjectRef,
    write: {
      readonly resourceVersion: string;
      readonly labels: Record<string, string>;
      readonly annotations: Record<string, string>;
    },
  ): Promise<KubeObject> {
    return this.#patch(op, target, {
      type: "merge",
      body: {
        metadata: {
          resourceVersion: write.resourceVersion,
          labels: write.labels,
          annotations: write.annotations,
        },
      },
    });
  }

  async #patch(op: Operation, target: ObjectRef, patch: KubePatch): Promise<KubeObject> {
    const { kind, name } = target;
    const request: KubeRequest = {
      verb: "patch",
      resource: kind.plural,
      namespace: this.namespace,
      name,
      patchType: patch.type,
    };
    const body = patch.type === "merge" ? patch.body : patch.operations;
    const contentType = patch.type === "merge" ? PatchStrategy.MergePatch : PatchStrategy.JsonPatch;
    const answer = await this.#send(op, { ...request, contentType }, (options) =>
      this.#custom.patchNamespacedCustomObject({ ...this.#at(kind), name, body }, options),
    );
    return this.#object(request, answer);
  }

  /**
   * DELETE the object, with preconditions when given (DeleteOptions, `application/json`).
   *
   * @returns `deleted`, or `already_gone` when the object was not there (a `gone` answer):
   *   for teardown the same outcome.
   */
  async delete(
    op: Operation,
    target: ObjectRef,
    preconditions?: DeletePreconditions,
  ): Promise<"deleted" | "already_gone"> {
    const { kind, name } = target;
    const request: KubeRequest = {
      verb: "delete",
      resource: kind.plural,
      namespace: this.namespace,
      name,
    };
    const body = preconditions === undefined ? undefined : deleteOptions(preconditions);
    try {
      await this.#send(op, request, (options) =>
        this.#custom.deleteNamespacedCustomObject(
          { ...this.#at(kind), name, ...(body === undefined ? {} : { body }) },
          options,
        ),
      );
      return "deleted";
    } catch (error) {
      if (error instanceof KubeError && error.kind === "gone") return "already_gone";
      throw error;
    }
  }

  #at(kind: CustomKind): { group: string; version: string; namespace: string; plural: string } {
    return {
      group: kind.group,
      version: kind.version,
      namespace: this.namespace,
      plural: kind.plural,
    };
  }

  #object(request: KubeRequest, answer: unknown): KubeObject {
    const parsed = kubeObjectSchema.safeParse(answer);
    if (!parsed.success) throw unreadableAnswer(request, "an object Berth cannot read");
    return parsed.data;
  }

  /**
   * Sends one request under the operation: nothing at all once the operation is over; the
   * request's signal set on client-node's request context; the whole call (credentials
   * included: an exec plugin can hang) raced against that signal; every failure normalised.
   */
  async #send(
    op: Operation,
    request: KubeRequest & { readonly contentType?: string },
    call: (options: ConfigurationOptions) => Promise<unknown>,
  ): Promise<unknown> {
    const { contentType, ...described } = request;
    const before = op.cause();
    if (before !== undefined)
      throw normalizeKubeError(op.signal.reason, { request: described, abort: before });
    const scope = op.request(this.requestTimeoutMs);
    const { signal } = scope;
    const middleware = {
      pre: (context: RequestContext): Observable<RequestContext> => {
        context.setSignal(signal);
        // Runs after client-node's own authentication, which set a fresh agent.
        const agent = this.#connections.reuse(context.getAgent());
        if (agent !== undefined) context.setAgent(agent);
        if (contentType !== undefined) context.setHeaderParam("Content-Type", contentType);
        return new Observable(Promise.resolve(context));
      },
      post: (context: ResponseContext): Observable<ResponseContext> =>
        new Observable(Promise.resolve(context)),
    };
    try {
      return await raceAbort(
        call({ middleware: [middleware], middlewareMergeStrategy: "append" }),
        signal,
      );
    } catch (error) {
      throw normalizeKubeError(error, { request: described, abort: scope.cause() });
    }
  }
}

function secretReading(request: KubeRequest, answer: unknown): SecretReading {
  const parsed = secretSchema.safeParse(answer);
  if (!parsed.success) throw unreadableAnswer(request, "a Secret Berth cannot read");
  const controller = parsed.data.metadata.ownerReferences?.find((ref) => ref.controller === true);
  return {
    name: parsed.data.metadata.name,
    controllerUid: controller?.uid,
    data: parsed.data.data ?? {},
  };
}

function deleteOptions(preconditions: DeletePreconditions): V1DeleteOptions {
  const options = new V1DeleteOptions();
  options.apiVersion = "v1";
  options.kind = "DeleteOptions";
  if (preconditions.uid !== undefined || preconditions.resourceVersion !== undefined) {
    const conditions = new V1Preconditions();
    if (preconditions.uid !== undefined) conditions.uid = preconditions.uid;
    if (preconditions.resourceVersion !== undefined)
      conditions.resourceVersion = preconditions.resourceVersion;
    options.preconditions = conditions;
  }
  if (preconditions.propagationPolicy !== undefined)
    options.propagationPolicy = preconditions.propagationPolicy;
  return options;
}

/** Settles with `work`, or rejects as soon as `signal` aborts (the work is then abandoned). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const aborted = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", aborted, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", aborted);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The create-only keys, raw (merge patch) and as JSON Pointer segments (JSON Patch paths). */
function refuseCreateOnlyKeys(name: string, patch: KubePatch): void {
  const text = JSON.stringify(patch.type === "merge" ? patch.body : patch.operations);
  for (const key of CREATE_ONLY_ANNOTATIONS) {
    if (text.includes(JSON.stringify(key).slice(1, -1)) || text.includes(jsonPointerSegment(key)))
      throw new CreateOnlyAnnotationPatchError(name, key);
  }
}
