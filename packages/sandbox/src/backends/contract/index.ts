export { describeBackendContract } from "./describeBackendContract.ts";
export type { BackendContractFixture, BackendContractSetup } from "./contractFixture.ts";
