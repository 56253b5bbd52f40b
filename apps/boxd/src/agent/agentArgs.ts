import { statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AgentEnv } from "./env.ts";
import { AGENT_EXIT, AgentExit } from "./exitCodes.ts";

/** `boxd agent`'s command line, checked. */
export interface AgentOptions {
  /** The Berth server's origin (and base path, if any), without a trailing slash. */
  readonly server: string;
  /** The folder the agent serves; every operation is confined to it. */
  readonly root: string;
  /** A one-time enrollment code; needed only while no credential is stored for the server. */
  readonly enroll: string | undefined;
  readonly name: string | undefined;
  /** Where the credential file lives (made 0700). */
  readonly stateDir: string;
}

export const AGENT_USAGE =
  "usage: node boxd.mjs agent --server URL --root DIR [--enroll CODE] [--name NAME] [--state-dir DIR]";

function usage(message: string): AgentExit {
  return new AgentExit(AGENT_EXIT.usage, `boxd agent: ${message}\n${AGENT_USAGE}`);
}

/** Parses `boxd agent`'s flags (argv after `agent`); throws AgentExit(usage) naming the flag. */
export function parseAgentArgs(argv: readonly string[], env: AgentEnv): AgentOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        server: { type: "string" },
        root: { type: "string" },
        enroll: { type: "string" },
        name: { type: "string" },
        "state-dir": { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw usage(error instanceof Error ? error.message : String(error));
  }
  if (values.server === undefined) throw usage("--server URL is required");
  let url: URL;
  try {
    url = new URL(values.server);
  } catch {
    throw usage(`--server must be an http or https URL, not ${JSON.stringify(values.server)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usage(`--server must be an http or https URL, not ${JSON.stringify(values.server)}`);
  }
  if (values.root === undefined) throw usage("--root DIR is required: the folder to serve");
  if (!isFolder(values.root)) throw usage(`--root ${values.root} is not an existing folder`);
  if (values.enroll === "") throw usage("--enroll needs the code `berth machines enroll` printed");
  if (values.name === "") throw usage("--name must not be empty");
  const stateDir = values["state-dir"] ?? defaultStateDir(env);
  if (stateDir === undefined) {
    throw usage("--state-dir DIR is required when neither XDG_CONFIG_HOME nor HOME is set");
  }
  return {
    server: `${url.origin}${url.pathname.replace(/\/+$/, "")}`,
    root: values.root,
    enroll: values.enroll,
    name: values.name,
    stateDir,
  };
}

function defaultStateDir(env: AgentEnv): string | undefined {
  if (env.configHome !== undefined) return join(env.configHome, "berth-agent");
  if (env.home !== undefined) return join(env.home, ".config", "berth-agent");
  return undefined;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
