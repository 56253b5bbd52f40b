import type { Backend } from "../../spawner/backend.ts";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";

/**
 * What an adapter's contract test file gives the suite: adapters of any installation over one
 * shared store (a data folder, a namespace), so the suite can prove a box stays with the
 * installation that created it.
 */
export interface BackendContractFixture {
  /**
   * A new adapter object acting for installation `installationId` (a UUID). Every adapter the
   * fixture makes sees the same store; two made for the same installation are how a spawner's
   * successor meets its predecessor's boxes.
   */
  adapter(installationId: string): Backend;
  /** What the suite's boxes run: a profile the adapter's store can start. */
  readonly profile: ExecutionProfile;
  /** An instance id in the adapter's own form that names no box (and never did). */
  absentInstanceId(): string;
  /** Removes what the fixture made; called after the suite has terminated its boxes. */
  dispose(): Promise<void>;
}

/** Builds the fixture once, before the suite's first test. */
export type BackendContractSetup = () => Promise<BackendContractFixture>;
