import { randomBytes } from "node:crypto";
import { BoxError, boxOperations, type AgentReply, type AgentRequest } from "@berth/box-protocol";
import type { Logger } from "pino";
import type { z } from "zod";
import { childBaseEnv } from "../env.ts";
import { DiskWatch, duMeasure } from "../fs/diskWatch.ts";
import { sweepStaleTemp } from "../fs/sweepTemp.ts";
import { WorkspaceRoot } from "../fs/workspaceRoot.ts";
import type { BoxdContext } from "../server/context.ts";
import { createHandlers, type Handlers } from "../server/handlers.ts";
import { BoxdIdentity } from "../server/identity.ts";
import { TerminalRegistry } from "../terminals/terminalRegistry.ts";
import { agentPtySpawner } from "./agentTerminals.ts";

/** boxd's own handlers over the agent's --root: what every channel request runs through. */
export interface AgentBox {
  /** Runs one request and makes its reply; never throws. */
  serve(request: AgentRequest): Promise<AgentReply>;
  close(): Promise<void>;
}

/**
 * The box an agent serves, built as startBoxd (server/boxd.ts) builds boxd's, minus the HTTP
 * listener: the same WorkspaceRoot confinement, disk watch and git context, so an agent's
 * operations are exactly a box's — and escape the root exactly as little. Its terminals run on
 * `script` instead of node-pty (agentTerminals.ts), read by long-polling (readTerminal with
 * waitMs): the channel carries no attach stream.
 */
export async function openAgentBox(options: {
  readonly root: string;
  readonly machineId: string;
  readonly logger: Logger;
}): Promise<AgentBox> {
  const root = await WorkspaceRoot.open(options.root);
  const logger = options.logger;
  const disk = new DiskWatch({ limitBytes: undefined, measure: duMeasure(root.realPath), logger });
  const baseEnv = childBaseEnv();
  const context: BoxdContext = {
    root,
    disk,
    terminals: new TerminalRegistry(await agentPtySpawner({ searchPath: baseEnv.PATH, logger })),
    git: { root: root.realPath, baseEnv, user: undefined },
    baseEnv,
    user: undefined,
    // Nothing reads it without a listener; a random token so it could never open anything.
    identity: BoxdIdentity.bound({
      instanceId: options.machineId,
      token: randomBytes(32).toString("hex"),
    }),
    podUid: undefined,
    logger,
  };
  const handlers = createHandlers(context);
  disk.start();
  void sweepStaleTemp(root, logger);
  return {
    serve: (request) => serveRequest(handlers, request),
    close: async () => {
      // Hung up as boxd's stop hangs up its own: no shell outlives the agent that served it.
      context.terminals.closeAll();
      disk.stop();
      await root.close();
    },
  };
}

async function serveRequest(handlers: Handlers, request: AgentRequest): Promise<AgentReply> {
  try {
    return { id: request.id, ok: true, result: await runOperation(handlers, request) };
  } catch (error) {
    const known = error instanceof BoxError;
    return {
      id: request.id,
      ok: false,
      error: {
        code: known ? error.code : "internal",
        message: (known ? error.message : "internal error").slice(0, 4096),
      },
    };
  }
}

async function runOperation(handlers: Handlers, request: AgentRequest): Promise<unknown> {
  const { op } = request;
  const parsed = (boxOperations[op].request as z.ZodType).safeParse(request.input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") ?? "";
    throw new BoxError(
      "invalid_request",
      `${op}: ${where ? `${where}: ` : ""}${issue?.message ?? ""}`,
    );
  }
  const handler = handlers[op] as (input: unknown) => Promise<unknown>;
  return handler(parsed.data);
}
