import type { HolderKind, LeaseLiveness } from "@berth/db";
import type { RecordedConfinement } from "../lease/confinement.ts";
import type { BackendKind } from "../spawner/backendRegistry.ts";

/**
 * Where a machine stands. A group box follows its lease (cold → warming → warm → draining); an
 * enrolled machine is online or offline by its last heartbeat.
 */
export type MachineState = LeaseLiveness | "online" | "offline";

/** One machine a session can run on, as the dashboard, the CLI and clients list it. */
export interface MachineView {
  /** The group box: its sandbox group's id; an enrolled machine: its own id. */
  readonly sandboxId: string;
  readonly sessionId: string;
  /** Where the group box runs (its lease's backend, else its session's); null: an enrolled machine. */
  readonly backend: BackendKind | null;
  readonly name: string;
  readonly kind: "group" | "selfhosted";
  readonly state: MachineState;
  /** The session's operations go here now (its pointer names it). */
  readonly active: boolean;
  /** The session's own group box (there is exactly one per session). */
  readonly isSessionGroup: boolean;
  /** The box the lease holds now; null while cold. */
  readonly instanceId: string | null;
  readonly workspaceGeneration: number;
  readonly archiveGeneration: number | null;
  /** A verified archive holds every admitted write (archiveGeneration = workspaceGeneration). */
  readonly archiveComplete: boolean;
  /** The lease's epoch; null before the session's box first started. */
  readonly leaseEpoch: number | null;
  readonly holders: Readonly<Record<HolderKind, number>>;
  /** Reported by enrolled machines; unknown (null) for a group box. */
  readonly os: string | null;
  readonly arch: string | null;
  readonly hasDisplay: boolean;
  /**
   * What the group box was given when its lease recorded it: its isolation (`none` is an
   * unisolated box, shown with a warning), its network and its limits (null: no limit). Null
   * while the lease has no box, for an enrolled machine (its owner's, not Berth's to confine),
   * and for a box recorded before Berth recorded this (unknown).
   */
  readonly confinement: RecordedConfinement | null;
  /** The latest heartbeat of any holder (group box) or of the machine itself. */
  readonly lastSeenAt: Date | null;
}
