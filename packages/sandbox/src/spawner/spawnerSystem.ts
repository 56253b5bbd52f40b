import { randomUUID } from "node:crypto";
import type { BoxClient } from "@berth/box-protocol";
import { ArchiveIntegrityError } from "../archives/archiveErrors.ts";
import type { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import type { ArchiveRow } from "../archives/archiveRows.ts";
import { RecoverySystem } from "../lease/recoverySystem.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { WarmingSystem } from "../lease/warmingSystem.ts";
import type { BackendRegistry } from "./backendRegistry.ts";
import type { Backend, CreatedBox } from "./backend.ts";
import type { ExecutionProfile } from "./executionProfile.ts";
import { settled, unwrap } from "./settled.ts";
import { SpawnError } from "./spawnError.ts";

export interface SpawnerOptions {
  readonly resources: LeaseResources;
  /** Where boxes come from: each lease's box from the backend the lease names. */
  readonly backends: BackendRegistry;
  /** Restores archived workspaces; without it a lease with an archive is refused, untouched. */
  readonly restorer?: ArchiveRestorer;
  /** How long a new box may take to serve (to answer `true`): one deadline, inside the backend. */
  readonly readinessTimeoutMs?: number;
}

export interface EstablishedBox {
  readonly instanceId: string;
  /** The lease, warm at the epoch after the spawner's. */
  readonly lease: LeaseSnapshot;
}

interface Fence {
  readonly workspaceId: string;
  readonly leaseId: string;
  readonly expectedEpoch: number;
}

/** The restore this spawn performs: its attempt id, the checked archive, and who restores it. */
interface Restore {
  readonly rematerializationId: string;
  readonly row: ArchiveRow;
  readonly restorer: ArchiveRestorer;
}

/**
 * The one cold → warming owner path: (begin the restore and check the archive,) record the
 * allocation intent, create the box, record it and what it was given (isolation, network,
 * limits) under the same epoch, verify exec readiness, (hydrate the archive, mark verifying,
 * check the box's recomputed revision,) commit warm. On
 * any failure the box this call created is terminated first; the lease is then failed (cold,
 * epoch+1) — unless a newer epoch owns it (the row is left alone) or termination could not be
 * confirmed (the row keeps the instance so the reaper stops it). Never publishes warm on a guess.
 */
export class SpawnerSystem {
  readonly #warming: WarmingSystem;
  readonly #recovery: RecoverySystem;
  readonly #backends: BackendRegistry;
  readonly #restorer: ArchiveRestorer | undefined;
  readonly #readinessTimeoutMs: number;

  constructor(options: SpawnerOptions) {
    this.#warming = new WarmingSystem(options.resources);
    this.#recovery = new RecoverySystem(options.resources);
    this.#backends = options.backends;
    this.#restorer = options.restorer;
    this.#readinessTimeoutMs = options.readinessTimeoutMs ?? 30_000;
  }

  /** Establishes a warm box for a lease this caller acquired as `spawner`. */
  async establish(spawned: LeaseSnapshot): Promise<EstablishedBox> {
    const fence = {
      workspaceId: spawned.workspaceId,
      leaseId: spawned.id,
      expectedEpoch: spawned.epoch,
    };
    let backend: Backend;
    let profile: ExecutionProfile;
    try {
      backend = this.#backends.backendFor(spawned);
      profile = this.#backends.profileFor(spawned);
    } catch (error) {
      // Nothing was created: the lease goes cold, and the caller hears which backend is missing.
      const failed = await this.#fail({
        fence,
        restore: undefined,
        error,
        reason: "create_failed",
      });
      throw new SpawnError({
        code: "create_failed",
        message: message(error),
        lease: failed,
        cause: error,
      });
    }
    // A box a drain suspended with its disk: resumed when its disk holds the selected revision
    // (no hydration), else deleted and replaced below under the same restore attempt.
    let attempt: string | undefined;
    if (spawned.suspendedInstanceId !== null && spawned.allocationId === null) {
      const resumed = await this.#resumeSuspended({
        fence,
        backend,
        spawned,
        instanceId: spawned.suspendedInstanceId,
      });
      if (resumed.kind === "established") return resumed.box;
      attempt = resumed.rematerializationId;
    }
    const restore =
      spawned.archiveStatus === "none" ? undefined : await this.#beginRestore(spawned, attempt);

    const intent = await this.#warming.recordAllocation({ ...fence, allocationId: randomUUID() });
    if (intent.outcome === "lost") throw superseded(intent.lease, intent.reason);
    const allocationId = intent.lease.allocationId ?? "";

    let created: CreatedBox;
    try {
      created = await backend.create({
        metadata: {
          workspaceId: spawned.workspaceId,
          leaseId: spawned.id,
          sandboxGroupId: spawned.sandboxGroupId,
          epoch: spawned.epoch,
          allocationId,
        },
        profile,
      });
    } catch (error) {
      const failed = await this.#fail({ fence, restore, error, reason: "create_failed" });
      throw new SpawnError({
        code: "create_failed",
        message: `The backend could not create a box: ${message(error)}`,
        lease: failed,
        cause: error,
      });
    }

    // The box is recorded, with what it was given, while it proves it can run a command:
    // neither waits for the other.
    const { instanceId, confinement } = created;
    const [recorded, ready] = await Promise.all([
      this.#warming.recordCreated({
        ...fence,
        allocationId,
        instanceId,
        rematerializationId: restore?.rematerializationId ?? null,
        confinement,
      }),
      settled(backend.ready(instanceId, { timeoutMs: this.#readinessTimeoutMs })),
    ]);
    if (recorded.outcome === "lost") {
      await this.#terminateOrLeave(backend, instanceId, fence.expectedEpoch);
      throw superseded(recorded.lease, recorded.reason);
    }

    let client: BoxClient;
    try {
      client = unwrap(ready);
    } catch (error) {
      await this.#terminateOrThrow({
        backend,
        instanceId,
        epoch: fence.expectedEpoch,
        lease: recorded.lease,
        error,
      });
      const failed = await this.#fail({ fence, restore, error, reason: "readiness_failed" });
      throw new SpawnError({
        code: "readiness_failed",
        message: `Box ${instanceId} never became ready: ${message(error)}`,
        lease: failed,
        cause: error,
      });
    }

    if (restore !== undefined) {
      await this.#hydrateAndVerify({
        fence,
        restore,
        client,
        backend,
        instanceId,
        lease: recorded.lease,
      });
    }

    const commit = await this.#warming.commitWarm({
      ...fence,
      instanceId,
      rematerializationId: restore?.rematerializationId ?? null,
    });
    if (commit.outcome === "lost") {
      await this.#terminateOrLeave(backend, instanceId, fence.expectedEpoch);
      throw superseded(commit.lease, commit.reason);
    }
    return { instanceId, lease: commit.lease };
  }

  /**
   * Starts this epoch's restore and checks the selected archive's blob before any box exists.
   * A blocked begin (the archive missed writes or is unverified) leaves the lease blocked.
   */
  async #beginRestore(
    spawned: LeaseSnapshot,
    rematerializationId: string = randomUUID(),
  ): Promise<Restore> {
    const fence = {
      workspaceId: spawned.workspaceId,
      leaseId: spawned.id,
      expectedEpoch: spawned.epoch,
    };
    const restorer = this.#restorer;
    if (restorer === undefined) {
      const failed = await this.#warming.failWarming({
        ...fence,
        terminated: true,
        reason: "archive_restore_unavailable",
      });
      throw new SpawnError({
        code: "archive_restore_unavailable",
        message: "This lease has a workspace archive and this spawner has no archive store.",
        lease: failed.lease,
      });
    }
    // The same attempt id again is idempotent: a resume that found the disk stale began it.
    const begun = await this.#begin(fence, rematerializationId);
    try {
      return { rematerializationId, row: await restorer.check(begun), restorer };
    } catch (error) {
      const restore = { rematerializationId };
      const failed = await this.#fail({ fence, restore, error, reason: "restore_failed" });
      throw restoreFailed(error, failed);
    }
  }

  /** Begins (or re-begins, same id) this epoch's restore attempt; a blocked one is thrown. */
  async #begin(fence: Fence, rematerializationId: string): Promise<LeaseSnapshot> {
    const begun = await this.#recovery.beginRematerialization({ ...fence, rematerializationId });
    if (begun.outcome === "blocked") {
      throw new SpawnError({
        code: "restore_blocked",
        message: `The archive cannot be restored (${begun.lease.failureCode ?? "blocked"}); an admin must restore a revision or start fresh.`,
        lease: begun.lease,
        failureCode: begun.lease.failureCode ?? undefined,
      });
    }
    if (begun.outcome === "lost") throw superseded(begun.lease, begun.reason);
    return begun.lease;
  }

  /**
   * The suspended box the cold lease remembers: taken as this epoch's box (recorded before it is
   * woken, so a dead spawner leaves it to the reaper), resumed, and asked for its revision. When
   * the disk holds exactly the selected revision the restore is verified from it and the lease
   * commits warm — nothing is hydrated. Otherwise (another revision, no archive to match, a box
   * that is gone or will not serve) it is deleted with its disk, fenced at this epoch, and
   * forgotten, and the caller rematerializes into a new allocation under the same attempt.
   */
  async #resumeSuspended(input: {
    fence: Fence;
    backend: Backend;
    spawned: LeaseSnapshot;
    instanceId: string;
  }): Promise<
    | { kind: "established"; box: EstablishedBox }
    | { kind: "discarded"; rematerializationId: string | undefined }
  > {
    const { fence, backend, instanceId } = input;
    let rematerializationId: string | undefined;
    let selected: string | null = null;
    if (input.spawned.archiveStatus !== "none") {
      rematerializationId = randomUUID();
      selected = (await this.#begin(fence, rematerializationId)).selectedRevision;
    }
    const taken = await this.#warming.takeSuspended({
      ...fence,
      instanceId,
      rematerializationId: rematerializationId ?? null,
    });
    if (taken.outcome === "lost") throw superseded(taken.lease, taken.reason);

    let why = "no archive selects a revision for its disk";
    if (selected !== null) {
      try {
        const confinement = await backend.resume(instanceId, { epoch: fence.expectedEpoch });
        // What the resumed box runs with, recorded as for a created one (the take could not:
        // only the resume reports it); the lease's allocation is the one taken.
        const recorded = await this.#warming.recordCreated({
          ...fence,
          allocationId: taken.lease.allocationId ?? "",
          instanceId,
          rematerializationId: rematerializationId ?? null,
          confinement,
        });
        if (recorded.outcome === "lost") {
          await this.#terminateOrLeave(backend, instanceId, fence.expectedEpoch);
          throw superseded(recorded.lease, recorded.reason);
        }
        const client = await backend.ready(instanceId, { timeoutMs: this.#readinessTimeoutMs });
        const { revision } = await client.revision();
        why = `its disk holds revision ${revision}, not the selected ${selected}`;
        if (revision === selected && rematerializationId !== undefined) {
          const box = await this.#commitResumed({
            fence,
            backend,
            instanceId,
            rematerializationId,
            selected,
          });
          return { kind: "established", box };
        }
      } catch (error) {
        if (error instanceof SpawnError) throw error;
        why = `it did not resume: ${message(error)}`;
      }
    }
    await this.#terminateOrThrow({
      backend,
      instanceId,
      epoch: fence.expectedEpoch,
      lease: taken.lease,
      error: new Error(why),
    });
    const discarded = await this.#warming.discardTaken({
      ...fence,
      instanceId,
      reason: why.slice(0, 200),
    });
    if (discarded.outcome === "lost") throw superseded(discarded.lease, discarded.reason);
    return { kind: "discarded", rematerializationId };
  }

  /** The resumed disk holds the selected revision: verifying, then warm — or superseded. */
  async #commitResumed(input: {
    fence: Fence;
    backend: Backend;
    instanceId: string;
    rematerializationId: string;
    selected: string;
  }): Promise<EstablishedBox> {
    const { fence, backend, instanceId, rematerializationId } = input;
    const verifying = await this.#recovery.markVerifying({
      ...fence,
      rematerializationId,
      revision: input.selected,
    });
    if (verifying.outcome === "lost") {
      await this.#terminateOrLeave(backend, instanceId, fence.expectedEpoch);
      throw superseded(verifying.lease, verifying.reason);
    }
    const commit = await this.#warming.commitWarm({ ...fence, instanceId, rematerializationId });
    if (commit.outcome === "lost") {
      await this.#terminateOrLeave(backend, instanceId, fence.expectedEpoch);
      throw superseded(commit.lease, commit.reason);
    }
    return { instanceId, lease: commit.lease };
  }

  /** Hydrates the box, marks the restore verifying, and proves the box holds the revision. */
  async #hydrateAndVerify(input: {
    fence: Fence;
    restore: Restore;
    client: BoxClient;
    backend: Backend;
    instanceId: string;
    lease: LeaseSnapshot;
  }): Promise<void> {
    const { fence, restore, client, backend, instanceId } = input;
    const selected = restore.row.revision;
    try {
      const hydrated = await restore.restorer.hydrate({
        client,
        row: restore.row,
        leaseId: fence.leaseId,
      });
      // boxd re-reads the workspace from disk (what the box holds now, not what it was sent)
      // while the lease is marked verifying; its answer counts only once the mark is made.
      const [verifying, reread] = await Promise.all([
        this.#recovery.markVerifying({
          ...fence,
          rematerializationId: restore.rematerializationId,
          revision: selected,
        }),
        settled(client.revision()),
      ]);
      if (verifying.outcome === "lost") {
        await this.#terminateOrLeave(backend, instanceId, fence.expectedEpoch);
        throw superseded(verifying.lease, verifying.reason);
      }
      const { revision } = unwrap(reread);
      if (hydrated !== selected || revision !== selected) {
        throw new ArchiveIntegrityError(
          "workspace_fingerprint_mismatch",
          `the box's workspace is revision ${revision}, not the selected ${selected}`,
        );
      }
    } catch (error) {
      if (error instanceof SpawnError) throw error;
      await this.#terminateOrThrow({
        backend,
        instanceId,
        epoch: fence.expectedEpoch,
        lease: input.lease,
        error,
      });
      const failed = await this.#fail({ fence, restore, error, reason: "restore_failed" });
      throw restoreFailed(error, failed);
    }
  }

  /**
   * Fails the warming after the box (if any) is confirmed gone: a restore attempt fails with its
   * integrity code and retryable flag (unknown errors retry once), a plain spawn fails warming.
   */
  async #fail(input: {
    fence: Fence;
    restore: { readonly rematerializationId: string } | undefined;
    error: unknown;
    reason: string;
  }): Promise<LeaseSnapshot | null> {
    const { fence, restore, error } = input;
    if (restore === undefined) {
      const failed = await this.#warming.failWarming({
        ...fence,
        terminated: true,
        reason: input.reason,
      });
      return failed.lease;
    }
    const integrity = error instanceof ArchiveIntegrityError ? error : undefined;
    const failed = await this.#recovery.failRematerialization({
      ...fence,
      rematerializationId: restore.rematerializationId,
      failureCode: integrity?.code ?? "sandbox_rematerialization_failed",
      retryable: integrity?.retryable ?? true,
    });
    return failed.lease;
  }

  /** Terminates the box, or throws termination_unconfirmed leaving the row for the reaper. */
  async #terminateOrThrow(input: {
    backend: Backend;
    instanceId: string;
    epoch: number;
    lease: LeaseSnapshot;
    error: unknown;
  }): Promise<void> {
    if (await this.#terminateOrLeave(input.backend, input.instanceId, input.epoch)) return;
    throw new SpawnError({
      code: "termination_unconfirmed",
      message: `Box ${input.instanceId} failed and could not be stopped; the reaper will.`,
      lease: input.lease,
      cause: input.error,
    });
  }

  /**
   * True when the box is confirmed gone; false leaves it (and its lease record) for the reaper.
   * Fenced at the spawner's epoch: a box a newer epoch took over is left to that holder.
   */
  async #terminateOrLeave(backend: Backend, instanceId: string, epoch: number): Promise<boolean> {
    try {
      await backend.terminate(instanceId, { epoch });
      return true;
    } catch {
      return false;
    }
  }
}

function restoreFailed(error: unknown, lease: LeaseSnapshot | null): SpawnError {
  const code =
    error instanceof ArchiveIntegrityError ? error.code : "sandbox_rematerialization_failed";
  return new SpawnError({
    code: "restore_failed",
    message: `Restoring the workspace failed (${code}): ${message(error)}`,
    lease,
    failureCode: code,
    cause: error,
  });
}

function superseded(lease: LeaseSnapshot | null, reason: string): SpawnError {
  return new SpawnError({
    code: "superseded",
    message: `A newer epoch owns this lease (${reason}); nothing of ours remains.`,
    lease,
  });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
