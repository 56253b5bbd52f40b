import { randomUUID } from "node:crypto";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { LeaseSystem } from "../lease/leaseSystem.ts";
import { RecoverySystem, type PublishOutcome } from "../lease/recoverySystem.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { CaptureResult } from "../reaper/drainPort.ts";
import type { BackendRegistry } from "../spawner/backendRegistry.ts";
import { blobKey, compressor } from "./archiveFormat.ts";
import { findArchive, pruneArchives } from "./archiveRows.ts";
import {
  ArchiveStoreError,
  type ArchiveStore,
  type ArchiveStoreStatus,
  type BlobDigest,
  type PendingBlob,
} from "./archiveStore.ts";
import { throttled, type ArchiveProgress, type ProgressListener } from "./progress.ts";
import { BlobVanishedError, SharedBlobs } from "./sharedBlobs.ts";

export interface ArchiverOptions {
  readonly resources: LeaseResources;
  /** A lease's box is captured through the backend the lease names. */
  readonly backends: BackendRegistry;
  readonly store: ArchiveStore;
  /** Retention: how many revisions of a lease to keep (the current and selected always stay). */
  readonly keepRevisions?: number;
  /** Captures per call when writes keep landing during a capture. */
  readonly maxAttempts?: number;
  readonly onProgress?: ProgressListener;
}

interface Captured {
  readonly pending: PendingBlob;
  readonly digest: BlobDigest;
  readonly revision: string;
  readonly fileCount: number;
  /** The capture's last progress figure, to end it `failed` if the publish throws. */
  readonly progress: ArchiveProgress;
}

const optionsSchema = z.object({
  keepRevisions: z.number().int().min(1).max(1_000).default(5),
  maxAttempts: z.number().int().min(1).max(20).default(3),
});

/**
 * Captures a live box's workspace into the archive store and publishes it through the lease's
 * CAS. The capture records g = workspaceGeneration when it starts, and starts only once every
 * write <= g settled (so each is on the box); the publish requires the same epoch and instance,
 * the workspace still at g, and every write <= g settled. A write admitted
 * meanwhile makes the capture stale: it is discarded and captured again. A revision the lease
 * already has stores no new blob. After a publish, retention deletes what it no longer keeps.
 */
export class WorkspaceArchiver {
  readonly #resources: LeaseResources;
  readonly #backends: BackendRegistry;
  readonly #store: ArchiveStore;
  readonly #blobs: SharedBlobs;
  readonly #recovery: RecoverySystem;
  readonly #leases: LeaseSystem;
  readonly #keep: number;
  readonly #maxAttempts: number;
  readonly #onProgress: ProgressListener | undefined;

  constructor(options: ArchiverOptions) {
    const parsed = optionsSchema.parse({
      keepRevisions: options.keepRevisions,
      maxAttempts: options.maxAttempts,
    });
    this.#resources = options.resources;
    this.#backends = options.backends;
    this.#store = options.store;
    this.#blobs = new SharedBlobs({
      db: options.resources.db,
      store: options.store,
      clock: options.resources.clock,
    });
    this.#recovery = new RecoverySystem(options.resources);
    this.#leases = new LeaseSystem(options.resources);
    this.#keep = parsed.keepRevisions;
    this.#maxAttempts = parsed.maxAttempts;
    this.#onProgress = options.onProgress;
  }

  /** Where captures go, whether it answers now (see ArchiveStore.health), and its kind. */
  async storeHealth(): Promise<ArchiveStoreStatus> {
    return { kind: this.#store.kind, ...(await this.#store.health()) };
  }

  /** Captures and publishes `lease`'s box; `actor` names who asked (reaper, checkpoint, admin). */
  async capture(lease: LeaseSnapshot, options: { actor: string }): Promise<CaptureResult> {
    for (let attempt = 1; ; attempt += 1) {
      // g is read when the capture starts: the caller's snapshot may predate later writes.
      const current = await this.#leases.readByGroup({
        workspaceId: lease.workspaceId,
        sandboxGroupId: lease.sandboxGroupId,
      });
      if (current === null) return { kind: "refused", reason: "lease_not_found", lease: null };
      const instanceId = current.instanceId;
      const live = current.liveness === "warm" || current.liveness === "draining";
      if (current.epoch !== lease.epoch || instanceId === null || !live) {
        return { kind: "refused", reason: "stale_epoch", lease: current };
      }
      const generation = current.workspaceGeneration;
      // Every write up to g must have reached the box before its files are read: one admitted
      // but still running could land after the capture read its file, settle before the
      // publish, and be published as captured while the archive lacks it.
      if (await this.#writesInFlight(current.id, generation))
        return { kind: "refused", reason: "admissions_unsettled", lease: current };
      let captured: Captured;
      try {
        captured = await this.#captureBlob(current, instanceId);
      } catch (error) {
        if (await this.#isGone(current, instanceId)) return { kind: "provider_missing" };
        return { kind: "unavailable", reason: `capture failed: ${describe(error)}` };
      }
      let published: PublishOutcome;
      try {
        published = await this.#publish({
          lease: current,
          instanceId,
          generation,
          captured,
          actor: options.actor,
        });
      } catch (error) {
        this.#onProgress?.({ ...captured.progress, phase: "failed" });
        // A retention running at once deleted the blob this capture found stored: its bytes
        // are captured again and stored anew.
        if (error instanceof BlobVanishedError) {
          if (attempt < this.#maxAttempts) continue;
          return { kind: "unavailable", reason: `${error.message}; capture again` };
        }
        throw error;
      }
      if (published.outcome === "published") {
        await this.#prune(current);
        return {
          kind: "published",
          generation,
          revision: captured.revision,
          lease: published.lease,
        };
      }
      if (published.reason !== "workspace_changed_during_capture" || attempt >= this.#maxAttempts) {
        return { kind: "refused", reason: published.reason, lease: published.lease };
      }
    }
  }

  async #writesInFlight(leaseId: string, generation: number): Promise<boolean> {
    const rows = await this.#resources.db.$queryRaw<{ unsettled: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM mutation_admissions
                      WHERE lease_id = ${leaseId}::uuid AND settled_at IS NULL
                        AND generation <= ${generation}) AS unsettled`;
    return rows[0]?.unsettled === true;
  }

  /**
   * Streams the box's capture through gzip into a pending blob; nothing is committed yet. The
   * blob is tagged with this attempt's transfer id, as its progress is: if this process dies
   * mid-write, the worker's sweep finds the blob and fails exactly this progress.
   */
  async #captureBlob(lease: LeaseSnapshot, instanceId: string): Promise<Captured> {
    const client = await this.#backends.backendFor(lease).connect(instanceId);
    const transferId = randomUUID();
    const pending = await this.#store.begin({ leaseId: lease.id, transferId });
    const progress = throttled(this.#onProgress);
    let last: ArchiveProgress = {
      operation: "capture",
      leaseId: lease.id,
      transferId,
      phase: "capturing",
      bytesDone: 0,
      bytesTotal: undefined,
    };
    const figure = (bytesDone: number, bytesTotal: number | undefined) => {
      last = { ...last, bytesDone, bytesTotal };
      return last;
    };
    try {
      const gzip = compressor();
      const storing = pipeline(gzip, pending.sink);
      storing.catch(() => undefined);
      const result = await client.capture({
        destination: gzip,
        onProgress: ({ bytesDone, bytesTotal }) => progress.report(figure(bytesDone, bytesTotal)),
      });
      await storing;
      const digest = await pending.digest;
      progress.finish(figure(result.bytes, result.bytes));
      const fileCount = result.manifest.entries.filter((entry) => entry.type === "file").length;
      return { pending, digest, revision: result.revision, fileCount, progress: last };
    } catch (error) {
      progress.finish({ ...last, phase: "failed" });
      await pending.discard();
      throw error;
    }
  }

  /**
   * Publishes without a blob first (the lease may hold this revision already); only if it does
   * not is the pending blob committed under its own key and published with it.
   */
  async #publish(input: {
    lease: LeaseSnapshot;
    instanceId: string;
    generation: number;
    captured: Captured;
    actor: string;
  }): Promise<PublishOutcome> {
    const { lease, captured } = input;
    const base = {
      workspaceId: lease.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      instanceId: input.instanceId,
      generation: input.generation,
      revision: captured.revision,
      actor: input.actor,
    };
    let existing: PublishOutcome;
    try {
      existing = await this.#recovery.publishArchive({ ...base, archive: null });
    } catch (error) {
      await captured.pending.discard();
      throw error;
    }
    if (existing.outcome === "published" || existing.reason !== "blob_required") {
      await captured.pending.discard();
      return existing;
    }
    // An unverified or invalid row of this revision is replaced by the new blob: its old blob goes.
    const previous = await findArchive(this.#resources.db, {
      leaseId: lease.id,
      revision: captured.revision,
    });
    const storageKey = blobKey(captured.digest.sha256);
    await this.#blobs.dropKnownBad(storageKey);
    try {
      await captured.pending.commit(storageKey);
    } catch (error) {
      // The same bytes are stored already (the key is their sha256): this capture shares them.
      if (!(error instanceof ArchiveStoreError && error.code === "exists")) throw error;
    }
    const published = await this.#blobs.publishWith(storageKey, (within) =>
      this.#recovery.publishArchive(
        { ...base, archive: { ...captured.digest, fileCount: captured.fileCount, storageKey } },
        within,
      ),
    );
    // Deleted only on a definite answer, and only when no row refers to it: if the call failed,
    // the row may exist, and a blob left unreferenced is harmless where a row without its blob
    // would block a restore.
    if (published.outcome === "lost" || published.stored === "existing") {
      await this.#blobs.removeUnreferenced(storageKey);
    } else if (
      previous !== null &&
      previous.status !== "available" &&
      previous.storageKey !== storageKey
    ) {
      await this.#blobs.removeUnreferenced(previous.storageKey);
    }
    return published;
  }

  async #prune(lease: LeaseSnapshot): Promise<void> {
    const keys = await pruneArchives(this.#resources.db, {
      workspaceId: lease.workspaceId,
      leaseId: lease.id,
      keep: this.#keep,
    });
    // The rows are gone; each blob goes unless another row (of any lease) shares it. One left
    // behind by a failed delete is unreferenced, never wrong.
    await Promise.allSettled([...new Set(keys)].map((key) => this.#blobs.removeUnreferenced(key)));
  }

  async #isGone(lease: LeaseSnapshot, instanceId: string): Promise<boolean> {
    try {
      const box = (await this.#backends.backendFor(lease).inventory()).find(
        (info) => info.instanceId === instanceId,
      );
      return box === undefined || box.state === "gone";
    } catch {
      return false;
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
