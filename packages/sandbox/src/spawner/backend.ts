import type { BoxClient } from "@berth/box-protocol";
import type { BoxIsolation as DbBoxIsolation, BoxNetwork as DbBoxNetwork } from "@berth/db";
import type { ExecutionProfile } from "./executionProfile.ts";

/** What every box carries in its backend's metadata, so an orphan sweep can match it to a lease. */
export interface BoxMetadata {
  readonly workspaceId: string;
  readonly leaseId: string;
  /**
   * The sandbox group the lease keeps a box for. A Kubernetes box is named by it and refused
   * without it; absent on local boxes made before it was recorded.
   */
  readonly sandboxGroupId?: string;
  /** The warming epoch whose spawner created it. */
  readonly epoch: number;
  readonly allocationId: string;
  /**
   * The installation that created the box, set by the backend from its own configuration (a
   * caller's is ignored); absent on boxes from before installations were recorded, which count
   * as this installation's. An inventory lists only its own installation's boxes.
   */
  readonly installationId?: string;
}

/**
 * How a backend isolates its boxes on this machine (shown in inventory, recorded on the lease):
 * bubblewrap, none (an unisolated local box) or pod. The closed set is the lease column's CHECK.
 */
export type BoxIsolation = DbBoxIsolation;

/**
 * What a box's commands can reach of the network: only a loopback of their own (`none`), that
 * plus outbound access kept off the host (`egress`), the host's own network (`host`, an
 * unisolated local box), or their pod's (`pod`).
 */
export type BoxNetwork = DbBoxNetwork;

/**
 * What a box may use, as its backend enforced it at its latest start; null where nothing limits
 * it (unlimited, a box not started since limits were recorded, or memory and CPU on a machine
 * without cgroups for them).
 */
export interface BoxLimits {
  /** Most processes (threads included) the box's commands may run at once. */
  readonly processes: number | null;
  /** Most memory the box's commands may use together, in bytes. */
  readonly memoryBytes: number | null;
  /** Its CPU share under contention, on cgroup v2's cpu.weight scale (100 is everyone's). */
  readonly cpuWeight: number | null;
  /** Most bytes the box's workspace may hold. */
  readonly diskBytes: number | null;
}

/** No limit of any kind. */
export const noBoxLimits: BoxLimits = {
  processes: null,
  memoryBytes: null,
  cpuWeight: null,
  diskBytes: null,
};

/**
 * What a box was given as it was created (or adopted): the lease records it with the instance,
 * and the machines view shows it, an unisolated box with a warning.
 */
export interface BoxConfinement {
  readonly isolation: BoxIsolation;
  readonly network: BoxNetwork;
  readonly limits: BoxLimits;
}

/** A box `create` made or found: its id, and what it runs with now. */
export interface CreatedBox {
  readonly instanceId: string;
  readonly confinement: BoxConfinement;
}

export interface BoxInfo {
  readonly instanceId: string;
  readonly metadata: BoxMetadata;
  readonly createdAt: Date;
  readonly isolation: BoxIsolation;
  readonly network: BoxNetwork;
  readonly limits: BoxLimits;
  readonly state: BoxState;
}

/**
 * starting: made or resumed, not yet serving (a Pending pod; a local box never shows it, its
 * create and resume return once boxd serves); running: serving; suspended: stopped with its disk
 * kept; gone: only its record is left.
 */
export type BoxState = "starting" | "running" | "suspended" | "gone";

/** What `create` is asked for: whose box (the metadata) and what it runs (the profile). */
export interface CreateBoxInput {
  readonly metadata: BoxMetadata;
  readonly profile: ExecutionProfile;
}

/**
 * The lease epoch a change to a box is made at. A fencing backend (Kubernetes) applies it only
 * when no newer epoch has written the box, and records it in the same request; the local backend
 * changes a box under its per-box lock, and the lease's own compare-and-swap fences its callers.
 * Without an epoch a change is unfenced (the orphan sweep's, a box no lease holds).
 */
export interface BoxWrite {
  readonly epoch?: number;
}

/** One readiness wait: the whole budget (retries spend it, never extend it), and a caller abort. */
export interface ReadyOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** A closed set of backend failures, normalized in one place per adapter. */
export const backendErrorCodes = [
  "not_found",
  "capacity",
  "unavailable",
  "invalid",
  "internal",
  "unreachable_pod_network",
] as const;
export type BackendErrorCode = (typeof backendErrorCodes)[number];

/**
 * How each BackendError code reaches clients (`data.berth.code`, mapped in the API's error
 * table): capacity and unavailable may succeed on a later call, invalid and internal will not.
 * unreachable_pod_network (Kubernetes): the box serves inside its cluster, but Berth cannot open
 * a connection to its pod's address — Berth runs outside the cluster's pod network, and every
 * later call fails the same way until it runs inside it.
 */
export const backendErrorAnswers = {
  not_found: { code: "backend_not_found", retryable: false },
  capacity: { code: "backend_capacity", retryable: true },
  unavailable: { code: "backend_unavailable", retryable: true },
  invalid: { code: "backend_invalid", retryable: false },
  internal: { code: "backend_internal", retryable: false },
  unreachable_pod_network: { code: "backend_unreachable_pod_network", retryable: false },
} as const satisfies Record<BackendErrorCode, { code: `backend_${string}`; retryable: boolean }>;
export type BackendAnswerCode = (typeof backendErrorAnswers)[BackendErrorCode]["code"];
export const backendAnswerCodes: readonly BackendAnswerCode[] = Object.values(
  backendErrorAnswers,
).map((answer) => answer.code);

export class BackendError extends Error {
  override readonly name = "BackendError";
  readonly code: BackendErrorCode;
  readonly instanceId: string | undefined;

  constructor(options: {
    code: BackendErrorCode;
    message: string;
    instanceId?: string;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.instanceId = options.instanceId;
  }
}

/**
 * What an adapter caught, as a BackendError: one already is passes through; anything else takes
 * the code the adapter's own classifier gives it, its message prefixed by the operation (and the
 * box) that failed. Each adapter's one normalising function is this over its classifier.
 */
export function asBackendError(
  error: unknown,
  context: { readonly operation: string; readonly instanceId?: string | undefined },
  classify: (error: unknown) => BackendErrorCode,
): BackendError {
  if (error instanceof BackendError) return error;
  const where =
    context.instanceId === undefined
      ? context.operation
      : `${context.operation} ${context.instanceId}`;
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError({
    code: classify(error),
    message: `${where}: ${message}`,
    ...(context.instanceId === undefined ? {} : { instanceId: context.instanceId }),
    cause: error,
  });
}

/**
 * The Backend port: where boxes come from. Adapters: local (boxd processes) and Kubernetes.
 * `create` is idempotent per allocation id: a second create of the same allocation returns the
 * same box (that is how a spawner's successor adopts a box its predecessor created) — unless it
 * asks for another workspace, lease or execution profile, which is refused (`invalid`) with
 * nothing changed. Every create reports what the box runs with, so the lease records it in the
 * step that records the box. A box made or resumed may still be starting: `ready` is the one wait
 * for it to serve.
 */
export interface Backend {
  readonly kind: "local" | "kubernetes";
  /**
   * Whether a drained box is suspended with its disk kept (true: Kubernetes, where the PVC
   * outlives the pod and a resume skips hydration) rather than terminated (absent or false: the
   * local backend, whose boxes are cheap to re-create and whose disk is the archive's to rebuild).
   * The reaper's drain, the spawner's resume and the suspended-TTL sweep decide by it.
   */
  readonly drainKeepsDisk?: boolean;
  create(input: CreateBoxInput): Promise<CreatedBox>;
  /**
   * Waits until the box runs commands (boxd answers and runs `true`), and answers a client of
   * it. A box still starting is not a failure until `timeoutMs` has passed; retries inside spend
   * that one deadline. Fails `not_found` for a box that is gone, `unavailable` when the deadline
   * passed (or a suspended box was never resumed), `capacity` when the backend said it has no
   * room, `invalid` when the box can never start as asked.
   */
  ready(instanceId: string, options: ReadyOptions): Promise<BoxClient>;
  /**
   * Brings a suspended box (or one left by a control-plane restart) back to serving, and reports
   * what it runs with now, as `create` does: the spawner records it for the box it resumed.
   */
  resume(instanceId: string, write?: BoxWrite): Promise<BoxConfinement>;
  /** Stops and deletes the box. A box already gone counts as terminated (no error). */
  terminate(instanceId: string, write?: BoxWrite): Promise<void>;
  /** Stops the box and keeps its disk; returns once it no longer runs. */
  suspend(instanceId: string, write?: BoxWrite): Promise<void>;
  /** A client of the box's boxd. */
  connect(instanceId: string): Promise<BoxClient>;
  /** Every box this backend knows of, with its metadata. */
  inventory(): Promise<readonly BoxInfo[]>;
  /**
   * Deletes what this installation made on the backend's side that never became a box (so no
   * inventory lists it and no lease can record it) and is older than `horizon` — the
   * Kubernetes backend's warm claims whose member was never bound. The orphan sweep's; absent
   * where a box is all a create makes.
   */
  sweepStrays?(horizon: Date): Promise<StraySweep>;
}

/** What a stray sweep deleted (named `<Kind>/<name>`) and what it could not. */
export interface StraySweep {
  readonly deleted: readonly string[];
  readonly failed: readonly { readonly instanceId: string; readonly error: string }[];
}
