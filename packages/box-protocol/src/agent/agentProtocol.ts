/**
 * The agent protocol (issue 39): how boxd on a user's own machine (`boxd.mjs agent`) enrolls
 * with Berth and then serves its JSON box operations through one long-lived channel it dials
 * out — no inbound port on the machine. Requests come down as Server-Sent Events on
 * GET AGENT_ROUTES.channel; replies go up as POSTs to AGENT_ROUTES.replies. Every request after
 * enrollment carries `Authorization: Bearer <machine credential>`.
 */
import { z } from "zod";
import { BOX_ERROR_CODES } from "../boxError.ts";
import { boxOperations, type BoxOperationName } from "../operations.ts";

export const AGENT_ROUTES = {
  /** POST enrollRequestSchema → 201 enrollResponseSchema (no credential yet: the code is one). */
  enroll: "/agent/v1/enroll",
  /** GET, `Accept: text/event-stream`: the channel; AGENT_HELLO_HEADER says what the machine is. */
  channel: "/agent/v1/channel",
  /** POST agentReplySchema → 204. */
  replies: "/agent/v1/replies",
  /**
   * POST, no body → 201 rotateResponseSchema: a new credential for the machine presenting its
   * current one, which stays accepted until the new one opens a channel (told by AGENT_EVENTS.rotate).
   */
  rotate: "/agent/v1/rotate",
  /** GET: the single-file boxd (`node boxd.mjs agent …`), served by Berth itself. */
  bundle: "/agent/boxd.mjs",
} as const;

/** What the machine is, as its agent reports it on enrollment and at every channel connect. */
export const agentFactsSchema = z.strictObject({
  /** `process.platform` (`linux`). */
  os: z.string().min(1).max(32),
  /** `process.arch` (`x64`, `arm64`). */
  arch: z.string().min(1).max(32),
  hasDisplay: z.boolean(),
  /** The agent's boxd version (its package version). */
  boxdVersion: z.string().min(1).max(64),
});
export type AgentFacts = z.infer<typeof agentFactsSchema>;

/** The header carrying AgentFacts on the channel's GET: base64url of their JSON. */
export const AGENT_HELLO_HEADER = "x-berth-agent";

export const enrollRequestSchema = agentFactsSchema.extend({
  /** The one-time code an admin made (`berth machines enroll`). */
  code: z.string().min(1).max(64),
  /** The machine's name in the workspace; default: its host name. */
  name: z.string().min(1).max(63).optional(),
});
export type EnrollRequest = z.infer<typeof enrollRequestSchema>;

export const enrollResponseSchema = z.object({
  machineId: z.uuid(),
  workspaceId: z.uuid(),
  name: z.string(),
  /** The machine's credential: shown once, kept by the agent in a file only its user reads. */
  credential: z.string(),
});
export type EnrollResponse = z.infer<typeof enrollResponseSchema>;

/**
 * The JSON operations a machine serves through the channel: every one, terminals included
 * (read by polling readTerminal; the attach stream and the file streams are not carried).
 */
export const AGENT_OPERATIONS = Object.keys(boxOperations) as [
  BoxOperationName,
  ...BoxOperationName[],
];

/** `event: request` on the channel: one operation to run, answered by a reply with its id. */
export const agentRequestSchema = z.object({
  id: z.string().min(1).max(64),
  op: z.enum(AGENT_OPERATIONS),
  /** The operation's request, as boxOperations[op].request validates it. */
  input: z.unknown(),
});
export type AgentRequest = z.infer<typeof agentRequestSchema>;

/**
 * The channel's event names: a request to serve; a keep-alive the agent needs not answer; or
 * an admin's request that the agent rotate its credential (POST AGENT_ROUTES.rotate, save the
 * new one, connect with it).
 */
export const AGENT_EVENTS = { request: "request", ping: "ping", rotate: "rotate" } as const;

export const rotateResponseSchema = z.object({ credential: z.string().min(1) });
export type RotateResponse = z.infer<typeof rotateResponseSchema>;

export const agentReplySchema = z.discriminatedUnion("ok", [
  z.object({ id: z.string().min(1).max(64), ok: z.literal(true), result: z.unknown() }),
  z.object({
    id: z.string().min(1).max(64),
    ok: z.literal(false),
    error: z.object({ code: z.enum(BOX_ERROR_CODES), message: z.string().max(4096) }),
  }),
]);
export type AgentReply = z.infer<typeof agentReplySchema>;
