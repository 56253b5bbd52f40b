export { idSchema, workspaceSlugSchema } from "./ids.ts";
export { formatEnvProblems } from "./env.ts";
export { isNulFree, NUL_REFUSAL, textSchema } from "./text.ts";
export {
  displayNameSchema,
  emailSchema,
  passwordSchema,
  signUpSchema,
  tokenLifetimeDaysSchema,
} from "./identity.ts";
export { fileTransferRoutes, fileTransferScopeSchema } from "./fileTransfer.ts";
