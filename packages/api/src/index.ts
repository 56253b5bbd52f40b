import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "./root.ts";

export { createBerthApi, trustedOrigins } from "./api.ts";
export type { BerthApi, BoxDeps } from "./api.ts";
export type { ApiLogger } from "./logger.ts";
export { invitationHeader } from "./auth/betterAuth.ts";
export { deriveSecret } from "./auth/secrets.ts";
export { demoAdminCredentials, ensureDemoIdentity } from "./identity/demo.ts";
export { createPasswordUser } from "./identity/passwordAccount.ts";
export { apiEnvSchema } from "./env.ts";
export { serveApi } from "./http/serveApi.ts";
export type { ServedApi } from "./http/serveApi.ts";
export type { ApiEnv } from "./env.ts";
export { appRouter } from "./root.ts";
export type { AppRouter } from "./root.ts";
export type { TerminalStreamEvent } from "./router/terminal.ts";
export type { ApiContext, BuildInfo } from "./trpc.ts";
export { berthErrorCodes } from "./errors/berthErrorCodes.ts";
export type { BerthErrorCode } from "./errors/berthErrorCodes.ts";

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
