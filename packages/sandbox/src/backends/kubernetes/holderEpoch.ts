/**
 * The holder-epoch fence (spec/kubernetes.md §5): a write carrying epoch e applies only when the
 * Sandbox's stored epoch is ≤ e, and stores e in the same request — one JSON Patch whose `test`
 * ops come first. The lease epoch is what Berth passes, so a spawner or drainer a newer epoch
 * superseded can neither suspend, wake nor delete the box the newer holder uses.
 *
 * Only `test` and `add` ops are sent (`add` on an existing member replaces it, `replace` would
 * fail on an absent one). The Sandbox uid of the read is tested too: a Sandbox deleted and made
 * again under the same name is another box, reported `replaced` and never retried.
 */
import { BERTH_KEY_PREFIX, jsonPointerSegment } from "./berthKeys.ts";
import type { JsonPatchOperation, KubeClient } from "./kubeClient.ts";
import { KubeError } from "./kubeErrors.ts";
import { SANDBOX, type KubeObject } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";
import type { OperatingMode } from "./sandboxStatus.ts";

/** The stored epoch: the highest holder epoch that wrote the Sandbox. Absent reads as 0. */
export const HOLDER_EPOCH_ANNOTATION = `${BERTH_KEY_PREFIX}holder-epoch`;
/** When a fenced write last changed the operating mode (RFC 3339). */
export const MODE_CHANGED_AT_ANNOTATION = `${BERTH_KEY_PREFIX}operating-mode-changed-at`;

/** How many times a fenced write is sent at most: re-reads happen only when the object moved. */
export const HOLDER_EPOCH_WRITE_ATTEMPTS = 3;

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** What one GET says about the fence. */
export interface HolderEpochReading {
  /** The stored epoch (0 when absent), or `unreadable` (then every fenced write is refused). */
  readonly epoch: number | "unreadable";
  /** The annotation exactly as stored, when present: what the epoch clause tests. */
  readonly annotation: string | undefined;
  readonly hasAnnotations: boolean;
  readonly resourceVersion: string | undefined;
  readonly sandboxUid: string | undefined;
}

export function readHolderEpoch(sandbox: KubeObject): HolderEpochReading {
  const annotations = sandbox.metadata.annotations;
  const annotation = annotations?.[HOLDER_EPOCH_ANNOTATION];
  let epoch: number | "unreadable" = 0;
  if (annotation !== undefined) {
    epoch =
      DECIMAL.test(annotation) && Number.isSafeInteger(Number(annotation))
        ? Number(annotation)
        : "unreadable";
  }
  return {
    epoch,
    annotation,
    hasAnnotations: annotations !== undefined,
    resourceVersion: sandbox.metadata.resourceVersion,
    sandboxUid: sandbox.metadata.uid,
  };
}

/** A newer holder (or an unreadable epoch) stands in the way: nothing was written. */
export class HolderEpochRefusedError extends Error {
  override readonly name = "HolderEpochRefusedError";
  readonly operation: string;
  readonly sandboxName: string;
  readonly epoch: number;
  readonly stored: number | "unreadable";

  constructor(refusal: {
    readonly operation: string;
    readonly sandboxName: string;
    readonly epoch: number;
    readonly stored: number | "unreadable";
  }) {
    const { operation, sandboxName, epoch, stored } = refusal;
    super(
      stored === "unreadable"
        ? `${operation} ${sandboxName} refused: its holder epoch annotation is unreadable`
        : `${operation} ${sandboxName} refused at epoch ${String(epoch)}: epoch ${String(stored)} holds it`,
    );
    this.operation = operation;
    this.sandboxName = sandboxName;
    this.epoch = epoch;
    this.stored = stored;
  }
}

/** Refuses a write at `epoch` over a stored epoch above it (or one that cannot be read). */
export function refuseUnlessAllowed(write: {
  readonly operation: string;
  readonly sandboxName: string;
  readonly epoch: number;
  readonly stored: number | "unreadable";
}): void {
  if (write.stored === "unreadable" || write.stored > write.epoch)
    throw new HolderEpochRefusedError(write);
}

/** The Sandbox under the name is not the one read: deleted and made again. Never retried. */
export class SandboxReplacedError extends Error {
  override readonly name = "SandboxReplacedError";
  constructor(
    readonly sandboxName: string,
    readonly expectedUid: string,
    readonly actualUid: string | undefined,
  ) {
    super(
      `Sandbox ${sandboxName} was replaced (uid ${expectedUid} is now ${String(actualUid)}): the box it was is gone`,
    );
  }
}

/** The fence cannot be expressed safely; nothing was sent (a bug or an object Berth cannot use). */
export class UnfenceableWriteError extends Error {
  override readonly name = "UnfenceableWriteError";
}

/** An epoch a caller passes: a non-negative safe integer, checked before any request. */
export function checkEpoch(epoch: number): void {
  if (!Number.isSafeInteger(epoch) || epoch < 0)
    throw new RangeError(`a holder epoch is a non-negative safe integer (got ${String(epoch)})`);
}

export interface HolderEpochPatch {
  readonly reading: HolderEpochReading;
  readonly epoch: number;
  /** Extra conditions (after the epoch clause, before any change). */
  readonly tests?: readonly JsonPatchOperation[];
  /** The operating mode to write; none for a stamp-only write (a takeover). */
  readonly operatingMode?: OperatingMode;
  /** Stamped with a mode change. */
  readonly changedAt?: string;
}

/**
 * The one JSON Patch of a fenced write (§5.2): the uid test, the epoch clause, the caller's
 * tests, then the annotations (epoch, changed-at), then the mode.
 */
export function buildHolderEpochPatch(patch: HolderEpochPatch): JsonPatchOperation[] {
  const { reading, epoch } = patch;
  const tests: JsonPatchOperation[] = [];
  if (reading.sandboxUid !== undefined)
    tests.push({ op: "test", path: "/metadata/uid", value: reading.sandboxUid });
  const pointer = `/metadata/annotations/${jsonPointerSegment(HOLDER_EPOCH_ANNOTATION)}`;
  if (reading.annotation !== undefined) {
    tests.push({ op: "test", path: pointer, value: reading.annotation });
  } else if (reading.resourceVersion !== undefined) {
    // No epoch stored yet: the object as read is the condition (a writer racing in moves it).
    tests.push({ op: "test", path: "/metadata/resourceVersion", value: reading.resourceVersion });
  } else {
    throw new UnfenceableWriteError("a fenced write needs the stored epoch or a resourceVersion");
  }
  tests.push(...(patch.tests ?? []));

  const annotations: Record<string, string> = { [HOLDER_EPOCH_ANNOTATION]: String(epoch) };
  if (patch.operatingMode !== undefined && patch.changedAt !== undefined)
    annotations[MODE_CHANGED_AT_ANNOTATION] = patch.changedAt;
  const changes: JsonPatchOperation[] = [];
  if (!reading.hasAnnotations) {
    // A whole-map add would erase annotations another writer just added: only on the very
    // object read, so its resourceVersion is tested too.
    if (reading.resourceVersion === undefined)
      throw new UnfenceableWriteError("adding the annotations map needs a resourceVersion");
    const rvTest = {
      op: "test",
      path: "/metadata/resourceVersion",
      value: reading.resourceVersion,
    };
    if (!tests.some((t) => t.path === rvTest.path)) tests.push(rvTest as JsonPatchOperation);
    changes.push({ op: "add", path: "/metadata/annotations", value: annotations });
  } else {
    for (const [key, value] of Object.entries(annotations))
      changes.push({ op: "add", path: `/metadata/annotations/${jsonPointerSegment(key)}`, value });
  }
  if (patch.operatingMode !== undefined)
    changes.push({ op: "add", path: "/spec/operatingMode", value: patch.operatingMode });
  return [...tests, ...changes];
}

/** The re-read after a refused write: gone, replaced, or the new reading. */
async function reread(
  client: KubeClient,
  op: Operation,
  target: { readonly name: string; readonly expectedUid: string | undefined },
): Promise<{ sandbox: KubeObject; reading: HolderEpochReading }> {
  const { name, expectedUid } = target;
  const sandbox = await client.get(op, { kind: SANDBOX, name });
  const reading = readHolderEpoch(sandbox);
  if (expectedUid !== undefined && reading.sandboxUid !== expectedUid)
    throw new SandboxReplacedError(name, expectedUid, reading.sandboxUid);
  return { sandbox, reading };
}

function moved(before: HolderEpochReading, after: HolderEpochReading): boolean {
  return (
    before.annotation !== after.annotation ||
    before.resourceVersion !== after.resourceVersion ||
    before.hasAnnotations !== after.hasAnnotations
  );
}

/**
 * Sends a fenced write (§5.3) starting from `sandbox` as read: refused before any request when
 * a newer epoch holds it; on a 422 the Sandbox is read again, and the write is retried (at most
 * HOLDER_EPOCH_WRITE_ATTEMPTS in all) only when the tested values moved — an unmoved object
 * means the patch itself is wrong, which another try would not change.
 *
 * @returns the Sandbox as the successful PATCH answered it
 * @throws HolderEpochRefusedError, SandboxReplacedError, or the KubeError of the last attempt
 */
export async function fencedWrite(
  client: KubeClient,
  op: Operation,
  write: {
    readonly operation: string;
    readonly sandbox: KubeObject;
    readonly epoch: number;
    readonly operatingMode?: OperatingMode;
    readonly tests?: readonly JsonPatchOperation[];
    readonly now: () => Date;
  },
): Promise<KubeObject> {
  checkEpoch(write.epoch);
  const name = write.sandbox.metadata.name;
  let reading = readHolderEpoch(write.sandbox);
  const expectedUid = reading.sandboxUid;
  for (let attempt = 1; ; attempt++) {
    refuseUnlessAllowed({
      operation: write.operation,
      sandboxName: name,
      epoch: write.epoch,
      stored: reading.epoch,
    });
    const operations = buildHolderEpochPatch({
      reading,
      epoch: write.epoch,
      ...(write.tests === undefined ? {} : { tests: write.tests }),
      ...(write.operatingMode === undefined
        ? {}
        : { operatingMode: write.operatingMode, changedAt: write.now().toISOString() }),
    });
    try {
      return await client.patch(op, { kind: SANDBOX, name }, { type: "json", operations });
    } catch (error) {
      if (!(error instanceof KubeError && error.kind === "patch_not_applied")) throw error;
      if (attempt >= HOLDER_EPOCH_WRITE_ATTEMPTS) throw error;
      const again = await reread(client, op, { name, expectedUid });
      if (!moved(reading, again.reading)) throw error;
      reading = again.reading;
    }
  }
}

/**
 * A fenced DELETE (§5.4): refused when a newer epoch holds the Sandbox; sent with the uid and
 * resourceVersion of the read as preconditions, so it deletes exactly the object the fence was
 * checked on; a 409 (the object moved) reads it again and tries again, at most
 * HOLDER_EPOCH_WRITE_ATTEMPTS times. A Sandbox already gone is deleted.
 */
export async function fencedDelete(
  client: KubeClient,
  op: Operation,
  target: {
    readonly name: string;
    readonly epoch: number;
    /**
     * Run once, when the fence first lets the delete through and before it is sent (a warm
     * claim's release). It may change the Sandbox: it is read again, and fenced again, after.
     */
    readonly beforeDelete?: (sandbox: KubeObject) => Promise<void>;
  },
): Promise<"deleted" | "already_gone"> {
  checkEpoch(target.epoch);
  const { name } = target;
  let expectedUid: string | undefined;
  let prepare = target.beforeDelete;
  for (let attempt = 1; ; attempt++) {
    let reading: HolderEpochReading;
    let sandbox: KubeObject;
    try {
      ({ reading, sandbox } = await reread(client, op, { name, expectedUid }));
    } catch (error) {
      if (error instanceof KubeError && error.kind === "gone") return "already_gone";
      // The Sandbox this call was fencing is gone; a same-name successor is not ours to delete.
      if (error instanceof SandboxReplacedError) return "already_gone";
      throw error;
    }
    expectedUid ??= reading.sandboxUid;
    refuseUnlessAllowed({
      operation: "delete",
      sandboxName: name,
      epoch: target.epoch,
      stored: reading.epoch,
    });
    if (reading.resourceVersion === undefined)
      throw new UnfenceableWriteError(
        "a fenced DELETE needs the resourceVersion it was checked on",
      );
    if (prepare !== undefined) {
      await prepare(sandbox);
      prepare = undefined;
      attempt--;
      continue;
    }
    try {
      return await client.delete(
        op,
        { kind: SANDBOX, name },
        {
          ...(reading.sandboxUid === undefined ? {} : { uid: reading.sandboxUid }),
          resourceVersion: reading.resourceVersion,
        },
      );
    } catch (error) {
      if (!(error instanceof KubeError && error.kind === "conflict")) throw error;
      if (attempt >= HOLDER_EPOCH_WRITE_ATTEMPTS) throw error;
    }
  }
}
