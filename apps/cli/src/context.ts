import { createBerthClient, type BerthClient, type BerthClientOptions } from "@berth/client";
import type { Command } from "commander";
import { readCredentials } from "./config.ts";
import type { CliEnv } from "./env.ts";
import { CliError, usageError, type ErrorScope } from "./errors.ts";
import { Output } from "./output.ts";

/** Options every command has (`--json`) or that session commands add (`-s`). */
export interface CommonOptions {
  readonly json?: boolean;
  readonly session?: string;
}

/** A signed-in client and the workspace its token acts in. */
export interface Connection {
  readonly client: BerthClient;
  /** For the file transfers, which are plain HTTP beside tRPC. */
  readonly options: BerthClientOptions;
  readonly workspaceId: string;
}

/** A connection narrowed to one session: what box-service commands pass on every call. */
export interface SessionConnection extends Connection {
  readonly sessionId: string;
  readonly scope: { readonly workspaceId: string; readonly sessionId: string };
}

/**
 * One CLI invocation's shared state: the environment, what the error advice may name (the URL
 * and session, once known), and an exit code a command may set (exec passes its command's on).
 */
export class CliContext {
  /** Filled in as the command learns them, so an error's advice can name them. */
  readonly errorScope: { -readonly [K in keyof ErrorScope]: ErrorScope[K] };
  exitCode = 0;

  constructor(readonly env: CliEnv) {
    this.errorScope = { url: env.url, sessionId: env.sessionId };
  }

  output(command: Command): Output {
    return new Output(command.optsWithGlobals<CommonOptions>().json === true);
  }

  /** The stored credentials, each field overridden by BERTH_URL / BERTH_TOKEN / BERTH_WORKSPACE. */
  async connect(): Promise<Connection> {
    const stored = await readCredentials(this.env.configDir);
    const url = this.env.url ?? stored?.url;
    const token = this.env.token ?? stored?.token;
    if (url === undefined || token === undefined)
      throw new CliError({
        reason: "signedOut",
        code: "not_signed_in",
        message: "Not signed in.",
        hint: "Run `berth login --url <url> --email <email>` (or set BERTH_URL and BERTH_TOKEN).",
      });
    this.errorScope.url = url;
    const options = { url, token };
    const client = createBerthClient(options);
    // A stored workspace belongs to the stored token: a token from the environment names its own.
    const workspaceId =
      this.env.workspaceId ??
      (this.env.token === undefined ? stored?.workspaceId : undefined) ??
      (await tokenWorkspace(client, "Run `berth login` again.")).workspace.id;
    return { client, options, workspaceId };
  }

  /** `-s`, else BERTH_SESSION, else the workspace's only session. */
  async session(command: Command): Promise<SessionConnection> {
    const connection = await this.connect();
    const sessionId =
      command.optsWithGlobals<CommonOptions>().session ??
      this.env.sessionId ??
      (await onlySession(connection));
    this.errorScope.sessionId = sessionId;
    return {
      ...connection,
      sessionId,
      scope: { workspaceId: connection.workspaceId, sessionId },
    };
  }
}

/**
 * A token acts in exactly one workspace, the only one `me.get` shows it; with the token's
 * user. `hint` says what to do when that workspace is gone.
 */
export async function tokenWorkspace(client: BerthClient, hint: string) {
  const me = await client.me.get.query();
  const workspace = me.workspaces[0];
  if (workspace === undefined)
    throw new CliError({
      reason: "signedOut",
      code: "no_workspace",
      message: "The token's workspace is gone.",
      hint,
    });
  return { workspace, user: me.user };
}

async function onlySession(connection: Connection): Promise<string> {
  const sessions = await connection.client.sessions.list.query({
    workspaceId: connection.workspaceId,
  });
  const [first, second] = sessions;
  if (first === undefined)
    throw new CliError({
      reason: "notFound",
      code: "no_session",
      message: "This workspace has no sessions yet.",
      hint: "Create one: `berth sessions create --title <title>`.",
    });
  if (second !== undefined)
    throw usageError(
      `This workspace has ${String(sessions.length)} sessions: say which one.`,
      "Pass -s <session-id> or set BERTH_SESSION (`berth sessions` lists them).",
    );
  return first.id;
}
