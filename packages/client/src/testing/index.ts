// Helpers for suites and benchmarks that drive a served API (never imported by production code).
export { seedTokenOwner } from "./seedTokenOwner.ts";
export type { TokenOwner } from "./seedTokenOwner.ts";
