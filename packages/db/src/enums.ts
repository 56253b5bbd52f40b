// Closed unions mirrored by the SQL CHECKs of prisma/migrations; a test proves each
// CHECK allows exactly its union's members.

/** A member's role in a workspace. */
export const membershipRoles = ["owner", "admin", "member"] as const;
export type MembershipRole = (typeof membershipRoles)[number];

/** Where a sandbox group's box runs. */
export const sessionBackends = ["local", "kubernetes"] as const;
export type SessionBackend = (typeof sessionBackends)[number];

/** A lease's liveness: cold -> warming -> warm -> draining -> cold. */
export const leaseLivenesses = ["cold", "warming", "warm", "draining"] as const;
export type LeaseLiveness = (typeof leaseLivenesses)[number];

/** Who holds a lease: an agent turn, a dashboard viewer, one API request, a process in the box. */
export const holderKinds = ["turn", "viewer", "direct", "process"] as const;
export type HolderKind = (typeof holderKinds)[number];

/** What Berth knows of the box's existence at the backend. */
export const providerStatuses = [
  "not_created",
  "creating",
  "exists",
  "missing",
  "unknown",
] as const;
export type ProviderStatus = (typeof providerStatuses)[number];

/** Whether a verified archive of the workspace exists. */
export const archiveStatuses = ["none", "available", "unverified", "invalid"] as const;
export type ArchiveStatus = (typeof archiveStatuses)[number];

/** Where restoring the selected revision stands; degraded and unrecoverable block spawning. */
export const restoreStatuses = [
  "not_required",
  "pending",
  "restoring",
  "verifying",
  "ready",
  "degraded",
  "unrecoverable",
] as const;
export type RestoreStatus = (typeof restoreStatuses)[number];

/** Whether the live workspace is known to hold the selected revision. */
export const workspaceStatuses = [
  "unknown",
  "not_ready",
  "ready",
  "degraded",
  "unrecoverable",
] as const;
export type WorkspaceStatus = (typeof workspaceStatuses)[number];

/**
 * How a lease's box is isolated from its machine, as its backend reported it when the box was
 * recorded: bubblewrap (a local box in namespaces of its own), none (a local box running as a
 * plain process of the control plane's user), pod (a Kubernetes pod).
 */
export const boxIsolations = ["bubblewrap", "none", "pod"] as const;
export type BoxIsolation = (typeof boxIsolations)[number];

/**
 * What a box's commands can reach of the network: only a loopback of their own (`none`), that
 * plus outbound access kept off the host (`egress`), the host's own network (`host`, an
 * unisolated local box), or their pod's (`pod`).
 */
export const boxNetworks = ["none", "egress", "host", "pod"] as const;
export type BoxNetwork = (typeof boxNetworks)[number];

/** Who performed an audited action (`machine`: an enrolled machine's agent, with its credential). */
export const auditActorKinds = ["user", "token", "system", "machine"] as const;
export type AuditActorKind = (typeof auditActorKinds)[number];

/** What a session event records (session_events): a hot-swap of its pointer. */
export const sessionEventKinds = ["swap"] as const;
export type SessionEventKind = (typeof sessionEventKinds)[number];

/** Where a stored archive stands. */
export const archiveRecordStatuses = ["available", "unverified", "invalid"] as const;
export type ArchiveRecordStatus = (typeof archiveRecordStatuses)[number];

/** One rematerialization attempt's progress. */
export const rematerializationStatuses = ["restoring", "verifying", "ready", "failed"] as const;
export type RematerializationStatus = (typeof rematerializationStatuses)[number];

/** How an admitted write ended (null while in flight). */
export const admissionOutcomes = ["resolved", "rejected"] as const;
export type AdmissionOutcome = (typeof admissionOutcomes)[number];

/**
 * What an archive transfer does, and how far it is (capture: capturing; restore: checking,
 * hydrating); `failed`: it broke there (its process saw it, or died and a sweep found it).
 */
export const archiveProgressOperations = ["capture", "restore"] as const;
export type ArchiveProgressOperation = (typeof archiveProgressOperations)[number];
export const archiveProgressPhases = ["capturing", "checking", "hydrating", "failed"] as const;
export type ArchiveProgressPhase = (typeof archiveProgressPhases)[number];

/** Every CHECKed text column and the union it mirrors, by table and column. */
export const checkedColumns = [
  { table: "memberships", column: "role", values: membershipRoles },
  { table: "api_tokens", column: "role", values: membershipRoles },
  { table: "invitations", column: "role", values: membershipRoles },
  { table: "sessions", column: "backend", values: sessionBackends },
  { table: "sandbox_leases", column: "liveness", values: leaseLivenesses },
  { table: "sandbox_leases", column: "backend", values: sessionBackends },
  { table: "sandbox_leases", column: "provider_status", values: providerStatuses },
  { table: "sandbox_leases", column: "archive_status", values: archiveStatuses },
  { table: "sandbox_leases", column: "restore_status", values: restoreStatuses },
  { table: "sandbox_leases", column: "workspace_status", values: workspaceStatuses },
  { table: "sandbox_leases", column: "box_isolation", values: boxIsolations },
  { table: "sandbox_leases", column: "box_network", values: boxNetworks },
  { table: "lease_holders", column: "kind", values: holderKinds },
  { table: "audit_events", column: "actor_kind", values: auditActorKinds },
  { table: "workspace_archives", column: "status", values: archiveRecordStatuses },
  { table: "rematerializations", column: "status", values: rematerializationStatuses },
  { table: "mutation_admissions", column: "outcome", values: admissionOutcomes },
  { table: "archive_progress", column: "operation", values: archiveProgressOperations },
  { table: "archive_progress", column: "phase", values: archiveProgressPhases },
  { table: "session_events", column: "kind", values: sessionEventKinds },
] as const satisfies readonly { table: string; column: string; values: readonly string[] }[];
