export { idSchema, workspaceSlugSchema } from "./ids.ts";
export { formatEnvProblems } from "./env.ts";
