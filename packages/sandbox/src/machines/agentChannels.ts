/**
 * The server's side of the agent channel (issue 39): the machines whose agents hold a channel
 * to this process (replica), the calls waiting for their replies, and the heartbeats that keep
 * a machine's lastSeenAt fresh. One instance per process.
 *
 * Scope: a call reaches a machine only on the replica holding its channel. A call on another
 * replica answers `unavailable` (the machine_connections row says which replica holds it; the
 * relay between replicas is the next issue's).
 */
import { randomUUID } from "node:crypto";
import {
  BoxError,
  boxOperations,
  type AgentFacts,
  type AgentReply,
  type BoxOperationName,
  type OperationInput,
  type OperationResponse,
} from "@berth/box-protocol";
import type { DbClient } from "@berth/db";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import { retireOtherCredentials } from "./credentialRotation.ts";
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

export interface AgentChannelsOptions {
  readonly db: DbClient;
  readonly clock: Clock;
  /** This process' name in machine_connections (default: a random UUID). */
  readonly replicaId?: string;
  /** How often to ping and refresh lastSeenAt; 0 runs no timer (tests call heartbeatOnce). */
  readonly heartbeatMs?: number;
  /** A call's limit when its caller gives none. */
  readonly callTimeoutMs?: number;
}

export const DEFAULT_HEARTBEAT_MS = 15_000;
export const DEFAULT_AGENT_CALL_TIMEOUT_MS = 60_000;

interface Channel {
  readonly machine: ConnectingMachine;
  readonly sink: AgentSink;
  readonly end: (why: AgentChannelEnd) => void;
  readonly ended: Promise<AgentChannelEnd>;
  done: boolean;
}

interface PendingCall {
  readonly channel: Channel;
  readonly op: BoxOperationName;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: BoxError) => void;
}

/** The agent channels this process holds. */
export class AgentChannels {
  readonly replicaId: string;
  readonly #db: DbClient;
  readonly #clock: Clock;
  readonly #callTimeoutMs: number;
  readonly #channels = new Map<string, Channel>();
  readonly #pending = new Map<string, PendingCall>();
  readonly #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: AgentChannelsOptions) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.replicaId = options.replicaId ?? randomUUID();
    this.#callTimeoutMs = options.callTimeoutMs ?? DEFAULT_AGENT_CALL_TIMEOUT_MS;
    const every = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    if (every > 0) {
      this.#timer = setInterval(() => {
        // A failed round (database down) is retried at the next tick; nothing to report to.
        this.heartbeatOnce().catch(() => undefined);
      }, every);
      this.#timer.unref();
    }
  }

  /** Whether this process holds `machineId`'s channel now. */
  holds(machineId: string): boolean {
    return this.#channels.has(machineId);
  }

  /**
   * Records the machine's connection (its row names this replica) and what it reported, and
   * makes it the machine's channel here: an older channel of the same machine ends `replaced`.
   * The credential it connected with becomes its only one (credentialRotation.ts); when that
   * one is marked for rotation, the agent is told at once.
   */
  async open(
    machine: ConnectingMachine,
    facts: AgentFacts,
    sink: AgentSink,
  ): Promise<AgentConnection> {
    const now = await this.#clock.now();
    const { rotationRequested } = await this.#db.$transaction(async (tx) => {
      await tx.machineConnection.upsert({
        where: { machineId: machine.machineId },
        create: {
          machineId: machine.machineId,
          replicaId: this.replicaId,
          connectedAt: now,
          lastHeartbeatAt: now,
        },
        update: { replicaId: this.replicaId, connectedAt: now, lastHeartbeatAt: now },
      });
      await tx.machine.updateMany({
        where: { id: machine.machineId, workspaceId: machine.workspaceId },
        data: { lastSeenAt: now, ...facts },
      });
      return await retireOtherCredentials(tx, {
        machineId: machine.machineId,
        credentialHash: machine.credentialHash,
        now,
      });
    });
    let end: (why: AgentChannelEnd) => void = () => undefined;
    const ended = new Promise<AgentChannelEnd>((resolve) => {
      end = resolve;
    });
    const channel: Channel = { machine, sink, end, ended, done: false };
    const older = this.#channels.get(machine.machineId);
    this.#channels.set(machine.machineId, channel);
    if (older !== undefined) this.#end(older, "replaced");
    if (rotationRequested) this.#send(channel, ROTATE_EVENT);
    return {
      ended,
      close: async () => {
        const held = this.#channels.get(machine.machineId) === channel;
        this.#end(channel, "closed");
        if (held) await this.#forget(machine.machineId);
      },
    };
  }

  /**
   * Tells the machine's agent to rotate its credential, when its channel is held here. False
   * otherwise: the agent is told at its next connect, or by its holder's next heartbeat.
   */
  requestRotation(machineId: string): boolean {
    const channel = this.#channels.get(machineId);
    return channel !== undefined && this.#send(channel, ROTATE_EVENT);
  }

  /**
   * Ends the machine's channel here at once, if held (the machine was revoked): the agent's
   * next connect is refused. Another replica holding it ends it at its next heartbeat.
   */
  async endRevoked(machineId: string): Promise<void> {
    const channel = this.#channels.get(machineId);
    if (channel === undefined) return;
    this.#end(channel, "revoked");
    await this.#forget(machineId);
  }

  /**
   * One heartbeat round: pings every channel and refreshes its machine's lastSeenAt and its
   * connection's lastHeartbeatAt; a channel whose machine or credential is revoked ends, and
   * so does one whose row another replica took. An agent whose credential is marked for
   * rotation (asked on another replica) is told again.
   */
  async heartbeatOnce(): Promise<void> {
    // A replica no agent is connected to asks nothing of the database.
    if (this.#channels.size === 0) return;
    const now = await this.#clock.now();
    const marked = await this.#markedForRotation();
    for (const channel of [...this.#channels.values()]) {
      if (!this.#send(channel, { event: "ping", data: "{}" })) continue;
      if (marked.has(channel.machine.credentialHash)) this.#send(channel, ROTATE_EVENT);
      const { machineId, credentialHash } = channel.machine;
      const seen = await this.#db.machine.updateMany({
        where: {
          id: machineId,
          revokedAt: null,
          credentials: { some: { credentialHash, revokedAt: null } },
        },
        data: { lastSeenAt: now },
      });
      if (seen.count === 0) {
        this.#end(channel, "revoked");
        await this.#forget(machineId);
        continue;
      }
      const held = await this.#db.machineConnection.updateMany({
        where: { machineId, replicaId: this.replicaId },
        data: { lastHeartbeatAt: now },
      });
      // The machine connected again through another replica (this socket is a leftover the
      // agent no longer reads): that replica holds it now, and this channel ends.
      if (held.count === 0) this.#end(channel, "replaced");
    }
  }

  /**
   * Runs `op` on the machine through its channel: the input is validated here first, the
   * result when it comes back. `target` also carries the call's limit and signal. Rejects with a BoxError only: `not_found` for a machine not in
   * `target.workspaceId` (whether or not it exists elsewhere), `unavailable` when its channel
   * is not held here, `timeout`, or the code the agent answered with.
   */
  async call<K extends BoxOperationName>(
    target: MachineTarget & AgentCallOptions,
    op: K,
    input: OperationInput<K>,
  ): Promise<OperationResponse<K>> {
    const request = boxOperations[op].request.safeParse(input);
    if (!request.success)
      throw new BoxError("invalid_request", `${op}: ${z.prettifyError(request.error)}`);
    const channel = this.#channels.get(target.machineId);
    if (channel === undefined) {
      // Not held here: `unavailable` only for a machine the caller may know exists.
      await this.#requireInWorkspace(target);
      throw notConnected(target.machineId);
    }
    if (channel.machine.workspaceId !== target.workspaceId) throw notFound(target);
    const id = randomUUID();
    const result = await new Promise<unknown>((resolve, reject) => {
      const timeoutMs = target.timeoutMs ?? this.#callTimeoutMs;
      const settle = () => {
        clearTimeout(timer);
        target.signal?.removeEventListener("abort", abandon);
        this.#pending.delete(id);
      };
      const fail = (error: BoxError) => {
        settle();
        reject(error);
      };
      const abandon = () => {
        fail(new BoxError("timeout", `${op} on machine ${target.machineId}: abandoned`));
      };
      const timer = setTimeout(() => {
        fail(
          new BoxError(
            "timeout",
            `${op} on machine ${target.machineId}: no reply in ${String(timeoutMs)} ms`,
          ),
        );
      }, timeoutMs);
      this.#pending.set(id, {
        channel,
        op,
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: fail,
      });
      if (target.signal?.aborted === true) {
        abandon();
        return;
      }
      target.signal?.addEventListener("abort", abandon, { once: true });
      if (
        !this.#send(channel, {
          event: "request",
          data: JSON.stringify({ id, op, input: request.data }),
        })
      )
        fail(notConnected(target.machineId));
    });
    const parsed = boxOperations[op].response.safeParse(result);
    if (!parsed.success)
      throw new BoxError(
        "internal",
        `machine ${target.machineId} answered ${op} with a malformed result: ${z.prettifyError(parsed.error)}`,
      );
    return parsed.data as OperationResponse<K>;
  }

  /**
   * Delivers the agent's reply to the call waiting for it. False when no call of this machine
   * waits under that id (answered already, timed out, or another machine's: ignored).
   */
  reply(machine: AuthenticatedMachine, reply: AgentReply): boolean {
    const pending = this.#pending.get(reply.id);
    if (pending?.channel.machine.machineId !== machine.machineId) return false;
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(new BoxError(reply.error.code, reply.error.message));
    return true;
  }

  /** Ends every channel and stops the heartbeats; the rows this replica holds go. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    const machineIds = [...this.#channels.keys()];
    for (const channel of this.#channels.values()) this.#end(channel, "shutdown");
    this.#channels.clear();
    if (machineIds.length > 0)
      await this.#db.machineConnection.deleteMany({
        where: { machineId: { in: machineIds }, replicaId: this.replicaId },
      });
  }

  /** The credential hashes of the held channels that are marked for rotation. */
  async #markedForRotation(): Promise<Set<string>> {
    const hashes = [...this.#channels.values()].map((channel) => channel.machine.credentialHash);
    const rows = await this.#db.machineCredential.findMany({
      where: {
        credentialHash: { in: hashes },
        revokedAt: null,
        rotationRequestedAt: { not: null },
      },
      select: { credentialHash: true },
    });
    return new Set(rows.map((row) => row.credentialHash));
  }

  /** Throws not_found unless the machine is the target workspace's. */
  async #requireInWorkspace(target: MachineTarget): Promise<void> {
    const found = await this.#db.machine.findFirst({
      where: { id: target.machineId, workspaceId: target.workspaceId },
      select: { id: true },
    });
    if (found === null) throw notFound(target);
  }

  /** Sends an event; a sink that throws has lost its stream, and the channel ends `lost`. */
  #send(channel: Channel, event: AgentEvent): boolean {
    if (channel.done) return false;
    try {
      channel.sink(event);
      return true;
    } catch {
      this.#end(channel, "lost");
      void this.#forget(channel.machine.machineId).catch(() => undefined);
      return false;
    }
  }

  /** Marks a channel ended: its pending calls fail `unavailable`; the map forgets it. */
  #end(channel: Channel, why: AgentChannelEnd): void {
    if (channel.done) return;
    channel.done = true;
    const { machineId } = channel.machine;
    if (this.#channels.get(machineId) === channel) this.#channels.delete(machineId);
    for (const pending of [...this.#pending.values()]) {
      if (pending.channel === channel)
        pending.reject(
          new BoxError("unavailable", `machine ${machineId}'s channel ended (${why})`),
        );
    }
    channel.end(why);
  }

  /** Deletes the machine's connection row if it is still this replica's and no channel took it. */
  async #forget(machineId: string): Promise<void> {
    if (this.#channels.has(machineId)) return;
    await this.#db.machineConnection.deleteMany({
      where: { machineId, replicaId: this.replicaId },
    });
  }
}

/** Asks the agent to exchange its credential (AGENT_ROUTES.rotate) and connect with the new one. */
const ROTATE_EVENT: AgentEvent = { event: "rotate", data: "{}" };

// Kept in one place so every "not here" answer tells the person what to do.
function notConnected(machineId: string): BoxError {
  return new BoxError(
    "unavailable",
    `machine ${machineId} is not connected: start its agent, \`node boxd.mjs agent --server URL --root DIR\``,
  );
}

/** The same answer whether the machine is another workspace's or does not exist. */
function notFound(target: MachineTarget): BoxError {
  return new BoxError("not_found", `no machine ${target.machineId} in this workspace`);
}
