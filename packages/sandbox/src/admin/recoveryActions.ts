import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { AdmissionSystem } from "../lease/admissionSystem.ts";
import type { CasOutcome } from "../lease/errors.ts";
import { RecoverySystem } from "../lease/recoverySystem.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { DrainPort } from "../reaper/drainPort.ts";
import { RestoreRefusedError } from "./restoreRefusedError.ts";

export interface AdminActor {
  readonly kind: "user" | "token" | "system";
  readonly id: string;
}

export interface RecoveryActionsOptions {
  readonly resources: LeaseResources;
  /** How a live box is captured and stopped: the reaper's own drain port. */
  readonly drainPort: DrainPort;
  /** How long a restore's fence lasts; past it, a reaper may drain the box (default 10 min). */
  readonly claimTtlMs?: number;
  /** How long a restore waits for writes admitted before its fence to settle (default 30 s). */
  readonly settleTimeoutMs?: number;
}

const optionsSchema = z.object({
  claimTtlMs: z
    .number()
    .int()
    .min(1_000)
    .default(10 * 60_000),
  settleTimeoutMs: z.number().int().min(0).default(30_000),
});

/** How often a restore looks again at writes still settling. */
const SETTLE_POLL_MS = 25;

/**
 * The admin recovery actions: start fresh (only a blocked lease) and restore revision R. Each is
 * audited (one audit row and one lease event, in the transaction that changes the lease). The
 * caller has already checked that the actor is an admin of the workspace.
 */
export class RecoveryActions {
  readonly #recovery: RecoverySystem;
  readonly #admissions: AdmissionSystem;
  readonly #drainPort: DrainPort;
  readonly #options: z.infer<typeof optionsSchema>;

  constructor(options: RecoveryActionsOptions) {
    this.#recovery = new RecoverySystem(options.resources);
    this.#admissions = new AdmissionSystem(options.resources);
    this.#drainPort = options.drainPort;
    this.#options = optionsSchema.parse({
      claimTtlMs: options.claimTtlMs,
      settleTimeoutMs: options.settleTimeoutMs,
    });
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
   * Restores revision R, CAS'd on the epoch of `lease` (what the admin saw) at every step. A
   * cold lease just selects R. A live box is first fenced (no write admitted, every arrival
   * waits), then, once the writes admitted before the fence have settled, captured through the
   * DrainPort — its workspace becomes an archive revision of its own, so going back loses
   * nothing — and stopped; then R is selected at a new generation and the lease is cold at
   * epoch+1. The restore does not wake the box: the next call on it restores R and verifies it.
   *
   * A lost CAS is a named outcome (another restore, a reaper's drain, a moved epoch); a restore
   * that cannot go on gives the fence back and throws RestoreRefusedError: the box keeps
   * running, idle, with every write.
   */
  async restoreRevision(input: {
    lease: LeaseSnapshot;
    revision: string;
    actor: AdminActor;
  }): Promise<CasOutcome<"restored">> {
    const { lease } = input;
    if (lease.liveness === "warming") {
      throw new RestoreRefusedError("spawn_in_progress", { epoch: lease.epoch });
    }
    const base = {
      workspaceId: lease.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      revision: input.revision,
      actor: input.actor,
    };
    if (lease.instanceId === null) {
      return this.#recovery.restoreRevision({ ...base, instanceId: null, claimId: null });
    }
    const claimId = randomUUID();
    const actor = `${input.actor.kind}:${input.actor.id}`;
    const fenced = await this.#recovery.fenceRestore({
      ...base,
      instanceId: lease.instanceId,
      claimId,
      actor,
      claimTtlMs: this.#options.claimTtlMs,
    });
    if (fenced.outcome === "lost") return fenced;
    const giveBack = (reason: string) =>
      this.#recovery.unfenceRestore({ ...base, claimId, actor, reason }).catch(() => undefined);
    try {
      const lost = await this.#captureAndStop(fenced.lease, actor, giveBack);
      if (lost !== null) return lost;
    } catch (error) {
      if (!(error instanceof RestoreRefusedError)) await giveBack("restore_failed");
      throw error;
    }
    return this.#recovery.restoreRevision({ ...base, instanceId: lease.instanceId, claimId });
  }

  /**
   * Captures and stops the fenced box. Answers null when it is done (or the box was already
   * gone: there is nothing left to keep), or the lost CAS; gives the fence back and throws when
   * it cannot go on.
   */
  async #captureAndStop(
    fenced: LeaseSnapshot,
    actor: string,
    giveBack: (reason: string) => Promise<unknown>,
  ): Promise<Extract<CasOutcome<"restored">, { outcome: "lost" }> | null> {
    const refuse = async (
      code: "capture_unavailable" | "writes_in_flight" | "stop_failed",
      detail?: string,
    ) => {
      await giveBack(code);
      return new RestoreRefusedError(code, {
        ...(detail === undefined ? {} : { detail }),
        epoch: fenced.epoch,
      });
    };
    // No write is admitted past the fence; one admitted before it may still be reaching the
    // box, and a capture started now could miss it. Wait for those to land first.
    if (!(await this.#writesSettled(fenced))) throw await refuse("writes_in_flight");
    let capture;
    try {
      capture = await this.#drainPort.capture(fenced, actor);
    } catch (error) {
      throw await refuse(
        "capture_unavailable",
        error instanceof Error ? error.message : String(error),
      );
    }
    switch (capture.kind) {
      case "unavailable":
        throw await refuse("capture_unavailable", capture.reason);
      case "refused":
        if (
          capture.reason === "admissions_unsettled" ||
          capture.reason === "workspace_changed_during_capture"
        )
          throw await refuse("writes_in_flight");
        await giveBack(capture.reason);
        return { outcome: "lost", reason: capture.reason, lease: capture.lease };
      case "provider_missing":
        // The box died on its own: what it held past its archive is gone whatever we do.
        return null;
      case "published":
        try {
          await this.#drainPort.stop(fenced);
        } catch (error) {
          throw await refuse("stop_failed", error instanceof Error ? error.message : String(error));
        }
        return null;
    }
  }

  async #writesSettled(lease: LeaseSnapshot): Promise<boolean> {
    const deadline = performance.now() + this.#options.settleTimeoutMs;
    for (;;) {
      const unsettled = await this.#admissions.unsettled({
        workspaceId: lease.workspaceId,
        leaseId: lease.id,
      });
      if (unsettled === 0) return true;
      if (performance.now() >= deadline) return false;
      await sleep(SETTLE_POLL_MS);
    }
  }
}
