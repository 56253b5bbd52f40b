import type { CasOutcome } from "../lease/errors.ts";
import { LeaseError } from "../lease/errors.ts";
import { RecoverySystem } from "../lease/recoverySystem.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { DrainPort } from "../reaper/drainPort.ts";

export interface AdminActor {
  readonly kind: "user" | "token" | "system";
  readonly id: string;
}

/** Why a restore could not even start: nothing was changed. */
export class RestoreRefusedError extends Error {
  override readonly name = "RestoreRefusedError";
  constructor(
    readonly reason: "spawn_in_progress" | "capture_unavailable" | "admissions_unsettled",
    detail: string,
  ) {
    super(`Cannot restore now (${reason}): ${detail}`);
  }
}

/**
 * The admin recovery actions: start fresh (only a blocked lease) and restore revision R. Each is
 * audited (one audit row and one lease event, in the transaction that changes the lease). The
 * caller has already checked that the actor is an admin of the workspace.
 */
export class RecoveryActions {
  readonly #recovery: RecoverySystem;
  readonly #drainPort: DrainPort;

  constructor(options: { resources: LeaseResources; drainPort: DrainPort }) {
    this.#recovery = new RecoverySystem(options.resources);
    this.#drainPort = options.drainPort;
  }

  async startFresh(input: {
    lease: LeaseSnapshot;
    actor: AdminActor;
  }): Promise<CasOutcome<"started_fresh">> {
    return this.#recovery.startFresh({
      workspaceId: input.lease.workspaceId,
      leaseId: input.lease.id,
      expectedEpoch: input.lease.epoch,
      actor: input.actor,
    });
  }

  /**
   * Restores revision R. A live box is captured first (its workspace becomes an archive of its
   * own, so nothing is lost by going back) and stopped; then R is selected at a new generation.
   */
  async restoreRevision(input: {
    lease: LeaseSnapshot;
    revision: string;
    actor: AdminActor;
  }): Promise<CasOutcome<"restored">> {
    const { lease } = input;
    if (lease.liveness === "warming") {
      throw new RestoreRefusedError(
        "spawn_in_progress",
        "a box is being created; retry once it is warm",
      );
    }
    if (lease.instanceId !== null) await this.#captureAndStop(lease);
    return this.#recovery.restoreRevision({
      workspaceId: lease.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      instanceId: lease.instanceId,
      revision: input.revision,
      actor: input.actor,
    });
  }

  async #captureAndStop(lease: LeaseSnapshot): Promise<void> {
    const capture = await this.#drainPort.capture(lease, "admin");
    switch (capture.kind) {
      case "unavailable":
        throw new RestoreRefusedError("capture_unavailable", capture.reason);
      case "provider_missing":
        return;
      case "refused":
        if (
          capture.reason === "admissions_unsettled" ||
          capture.reason === "workspace_changed_during_capture"
        ) {
          throw new RestoreRefusedError(
            "admissions_unsettled",
            "writes are still landing; retry shortly",
          );
        }
        throw new LeaseError({
          code: "lease_not_found",
          message: `The lease moved on: ${capture.reason}`,
        });
      case "published":
        await this.#drainPort.stop(lease);
    }
  }
}
