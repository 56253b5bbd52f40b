export { describeArchiveStoreContract } from "./describeArchiveStoreContract.ts";
export type { ArchiveStoreContractFixture, ArchiveStoreContractSetup } from "./contractFixture.ts";
