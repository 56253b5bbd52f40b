/** What the agent channels' holder and callers see of them (agentChannels.ts). */
import type { AuthenticatedMachine } from "./machineCredential.ts";

/** One SSE event for the agent: `event: <event>\ndata: <data>\n\n` (AGENT_EVENTS' names). */
export interface AgentEvent {
  readonly event: "request" | "ping" | "rotate";
  readonly data: string;
}

/** Where a channel's events go (the open SSE stream); throwing means the stream is gone. */
export type AgentSink = (event: AgentEvent) => void;

/** Why a channel ended, as a closed set. */
export type AgentChannelEnd =
  /** Its holder closed it (the agent went away). */
  | "closed"
  /** A newer connection of the same machine took its place (here, or on another replica). */
  | "replaced"
  /** The machine or the credential it connected with was revoked (here, or seen at a heartbeat). */
  | "revoked"
  /** Its agent left a ping unanswered for a whole heartbeat period (hung, or its network gone). */
  | "silent"
  /** Its sink threw: the stream is gone. */
  | "lost"
  /** This process' AgentChannels closed. */
  | "shutdown";

/** The machine opening a channel: who it is, and the hash of the credential it presented. */
export interface ConnectingMachine extends AuthenticatedMachine {
  /** machineCredentialHash(credential): heartbeats end the channel once it is revoked. */
  readonly credentialHash: string;
}

/** An open channel, as its holder (the SSE handler) sees it. */
export interface AgentConnection {
  /** Ends the channel (idempotent): pending calls fail `unavailable`, the row goes. */
  close(): Promise<void>;
  /** Resolves once the channel has ended, with why: the handler then ends its stream. */
  readonly ended: Promise<AgentChannelEnd>;
  /** This connection's epoch (machines.connection_epoch after it opened). */
  readonly epoch: number;
}

/** Which machine a call is for, and the workspace the caller acts in. */
export interface MachineTarget {
  readonly machineId: string;
  readonly workspaceId: string;
}

export interface AgentCallOptions {
  /** Default: the AgentChannels' callTimeoutMs. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}
