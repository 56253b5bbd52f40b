import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";

const optional = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === "" ? undefined : value));

/** What the CLI reads from its environment: overrides of the stored credentials, and where they are kept. */
export const cliEnvSchema = z.object({
  BERTH_URL: optional,
  BERTH_TOKEN: optional,
  BERTH_WORKSPACE: optional,
  BERTH_SESSION: optional,
  BERTH_CONFIG_DIR: optional,
  XDG_CONFIG_HOME: optional,
});

export interface CliEnv {
  readonly url: string | undefined;
  readonly token: string | undefined;
  readonly workspaceId: string | undefined;
  readonly sessionId: string | undefined;
  /** Where credentials.json lives: $BERTH_CONFIG_DIR, else $XDG_CONFIG_HOME/berth, else ~/.config/berth. */
  readonly configDir: string;
}

/** Reads the environment once; the only reader of process.env in the CLI. */
export function readCliEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  const env = cliEnvSchema.parse(source);
  return {
    url: env.BERTH_URL,
    token: env.BERTH_TOKEN,
    workspaceId: env.BERTH_WORKSPACE,
    sessionId: env.BERTH_SESSION,
    configDir:
      env.BERTH_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "berth"),
  };
}
