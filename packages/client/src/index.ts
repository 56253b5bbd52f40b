export { createBerthClient } from "./createBerthClient.ts";
export type { BerthClient, BerthClientOptions } from "./createBerthClient.ts";
export { createTokenWithPassword } from "./tokenWithPassword.ts";
