import type { ArchiveStore, PendingBlobTag } from "../archiveStore.ts";

/** One test's store, fresh and empty, with the views the suite needs into the adapter's storage. */
export interface ArchiveStoreContractFixture {
  readonly store: ArchiveStore;
  /** How many pending blobs (temporary names, uploads) the store holds right now. */
  pendingCount(): Promise<number>;
  /**
   * Leaves a pending blob tagged `tag` as a writer that died mid-capture would. Adapters that
   * cannot stage a dead writer yet leave it out, and the sweep tests that need it are skipped.
   */
  readonly abandon?: (tag: PendingBlobTag) => Promise<void>;
  /** Where the store says it is (its health's `location`). */
  readonly location: string;
  /**
   * Cuts the store off from its storage, as an outage would (a server stopped, a disk gone);
   * answers how to bring it back.
   */
  outage(): Promise<() => Promise<void>>;
  /** Removes what the fixture made. */
  dispose(): Promise<void>;
}

/** Builds a fresh fixture before each test of the suite. */
export type ArchiveStoreContractSetup = () => Promise<ArchiveStoreContractFixture>;
