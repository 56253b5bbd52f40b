import { z } from "zod";
import {
  archiveStatuses,
  leaseLivenesses,
  providerStatuses,
  restoreStatuses,
  workspaceStatuses,
} from "./states.ts";

// Times are checked as strings and become Dates in parseLeaseRow: a zod transform runs as a
// pipe, which costs more than every other field of this hot-path parse together.
const timestamp = z.string();

/** A lease row as the SQL functions return it (`to_jsonb` of the row: snake_case, ISO times). */
const leaseRowSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  sandbox_group_id: z.string(),
  liveness: z.enum(leaseLivenesses),
  epoch: z.number().int(),
  holder_count: z.number().int(),
  turn_holders: z.number().int(),
  viewer_holders: z.number().int(),
  instance_id: z.string().nullable(),
  backend: z.enum(["local", "kubernetes"]),
  execution_profile: z.string().nullable(),
  allocation_id: z.string().nullable(),
  expires_at: timestamp,
  workspace_generation: z.number().int(),
  archive_generation: z.number().int().nullable(),
  provider_status: z.enum(providerStatuses),
  archive_status: z.enum(archiveStatuses),
  restore_status: z.enum(restoreStatuses),
  workspace_status: z.enum(workspaceStatuses),
  selected_revision: z.string().nullable(),
  archive_revision: z.string().nullable(),
  rematerialization_id: z.string().nullable(),
  failure_code: z.string().nullable(),
  retryable: z.boolean().nullable(),
  restore_attempts: z.number().int(),
  rotation_requested_at: timestamp.nullable(),
  drain_claim_id: z.string().nullable(),
  // Absent from rows of functions older than the suspended-drain migration's columns: never.
  suspended_allocation_id: z.string().nullable(),
  suspended_instance_id: z.string().nullable(),
  suspended_at: timestamp.nullable(),
  created_at: timestamp,
});

/** What a caller sees of a lease: every column, camelCase, plus the derived `archiveComplete`. */
export interface LeaseSnapshot {
  readonly id: string;
  readonly workspaceId: string;
  readonly sandboxGroupId: string;
  readonly liveness: z.infer<typeof leaseRowSchema>["liveness"];
  readonly epoch: number;
  readonly holderCount: number;
  readonly turnHolders: number;
  readonly viewerHolders: number;
  readonly instanceId: string | null;
  readonly backend: "local" | "kubernetes";
  readonly executionProfile: string | null;
  readonly allocationId: string | null;
  readonly expiresAt: Date;
  readonly workspaceGeneration: number;
  readonly archiveGeneration: number | null;
  readonly providerStatus: z.infer<typeof leaseRowSchema>["provider_status"];
  readonly archiveStatus: z.infer<typeof leaseRowSchema>["archive_status"];
  readonly restoreStatus: z.infer<typeof leaseRowSchema>["restore_status"];
  readonly workspaceStatus: z.infer<typeof leaseRowSchema>["workspace_status"];
  readonly selectedRevision: string | null;
  /** The revision of the current published archive. */
  readonly archiveRevision: string | null;
  readonly rematerializationId: string | null;
  readonly failureCode: string | null;
  readonly retryable: boolean | null;
  readonly restoreAttempts: number;
  readonly rotationRequestedAt: Date | null;
  readonly drainClaimId: string | null;
  /**
   * The box a drain suspended with its disk (Kubernetes), kept by the cold lease for the next
   * spawner to resume or delete; null otherwise. Never the live box: that is `instanceId`.
   */
  readonly suspendedAllocationId: string | null;
  readonly suspendedInstanceId: string | null;
  readonly suspendedAt: Date | null;
  readonly createdAt: Date;
  /** The one definition: a verified archive exists and it captured every admitted write. */
  readonly archiveComplete: boolean;
}

/** Parses the jsonb lease the SQL functions return. A shape we did not write is a bug: throw. */
export function parseLeaseRow(value: unknown): LeaseSnapshot {
  const row = leaseRowSchema.parse(value);
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    sandboxGroupId: row.sandbox_group_id,
    liveness: row.liveness,
    epoch: row.epoch,
    holderCount: row.holder_count,
    turnHolders: row.turn_holders,
    viewerHolders: row.viewer_holders,
    instanceId: row.instance_id,
    backend: row.backend,
    executionProfile: row.execution_profile,
    allocationId: row.allocation_id,
    expiresAt: new Date(row.expires_at),
    workspaceGeneration: row.workspace_generation,
    archiveGeneration: row.archive_generation,
    providerStatus: row.provider_status,
    archiveStatus: row.archive_status,
    restoreStatus: row.restore_status,
    workspaceStatus: row.workspace_status,
    selectedRevision: row.selected_revision,
    archiveRevision: row.archive_revision,
    rematerializationId: row.rematerialization_id,
    failureCode: row.failure_code,
    retryable: row.retryable,
    restoreAttempts: row.restore_attempts,
    rotationRequestedAt:
      row.rotation_requested_at === null ? null : new Date(row.rotation_requested_at),
    drainClaimId: row.drain_claim_id,
    suspendedAllocationId: row.suspended_allocation_id,
    suspendedInstanceId: row.suspended_instance_id,
    suspendedAt: row.suspended_at === null ? null : new Date(row.suspended_at),
    createdAt: new Date(row.created_at),
    archiveComplete: isArchiveComplete({
      archiveStatus: row.archive_status,
      archiveGeneration: row.archive_generation,
      workspaceGeneration: row.workspace_generation,
    }),
  };
}

/** Whether a verified archive holds the workspace as it is now: every admitted write is in it. */
export function isArchiveComplete(lease: {
  archiveStatus: string;
  archiveGeneration: number | null;
  workspaceGeneration: number;
}): boolean {
  return (
    lease.archiveStatus === "available" && lease.archiveGeneration === lease.workspaceGeneration
  );
}
