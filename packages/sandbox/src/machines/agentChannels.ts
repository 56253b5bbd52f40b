/**
 * The server's side of the agent channel (issues 39, 40): the machines whose agents hold a
 * channel to this process (replica), the calls waiting for their replies, and the heartbeats
 * that tell a live agent from a silent one. One instance per process.
 *
 * A call may arrive at any replica. The one holding the machine's channel runs it; any other
 * reads the route (machine_connections: holder, address, connection epoch) and relays it there
 * through the MachineRelay port, naming the epoch it read. A machine with no live channel
 * anywhere answers `machine_offline` at once.
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
import { DEFAULT_HEARTBEAT_MS } from "./heartbeat.ts";
import type {
  AgentCallOptions,
  AgentChannelEnd,
  AgentConnection,
  AgentEvent,
  AgentSink,
  ConnectingMachine,
  MachineTarget,
} from "./agentChannelTypes.ts";
import { checkedResult, notFound, relayTarget, ROTATE_EVENT } from "./machineCalls.ts";
import type { AuthenticatedMachine } from "./machineCredential.ts";
import type { MachineRelay, RelayRequest } from "./machineRelay.ts";
import { readMachineRoute } from "./machineRoute.ts";

export interface AgentChannelsOptions {
  readonly db: DbClient;
  readonly clock: Clock;
  /** This process' name in machine_connections (default: a random UUID). */
  readonly replicaId?: string;
  /** Where other replicas reach this one (BERTH_REPLICA_URL); undefined: not relayable to. */
  readonly replicaUrl?: string;
  /** How calls reach the replica holding a channel; undefined: no relay (one replica). */
  readonly relay?: MachineRelay;
  /** How often to ping; 0 runs no timer (tests call heartbeatOnce). */
  readonly heartbeatMs?: number;
  /** A call's limit when its caller gives none. */
  readonly callTimeoutMs?: number;
}

export const DEFAULT_AGENT_CALL_TIMEOUT_MS = 60_000;
/** How many times a call follows a route refused as stale (the agent moved meanwhile). */
const STALE_ROUTE_RETRIES = 2;

interface Channel {
  readonly machine: ConnectingMachine;
  readonly epoch: number;
  readonly sink: AgentSink;
  readonly end: (why: AgentChannelEnd) => void;
  readonly ended: Promise<AgentChannelEnd>;
  done: boolean;
  /** The id of the ping sent at the last heartbeat, until the agent answers it. */
  awaitingPing: string | undefined;
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
  readonly #replicaUrl: string | null;
  readonly #relay: MachineRelay | undefined;
  readonly #callTimeoutMs: number;
  readonly #channels = new Map<string, Channel>();
  readonly #pending = new Map<string, PendingCall>();
  readonly #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: AgentChannelsOptions) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.replicaId = options.replicaId ?? randomUUID();
    this.#replicaUrl = options.replicaUrl ?? null;
    this.#relay = options.relay;
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
   * Records the machine's connection under its next epoch (its row names this replica and its
   * address) and what it reported, and makes it the machine's channel here: an older channel of
   * the same machine ends `replaced`. The credential it connected with becomes its only one
   * (credentialRotation.ts); when that one is marked for rotation, the agent is told at once.
   */
  async open(
    machine: ConnectingMachine,
    facts: AgentFacts,
    sink: AgentSink,
  ): Promise<AgentConnection> {
    const now = await this.#clock.now();
    const { epoch, rotationRequested } = await this.#db.$transaction(async (tx) => {
      const { connectionEpoch } = await tx.machine.update({
        where: { id: machine.machineId },
        data: { connectionEpoch: { increment: 1 }, lastSeenAt: now, ...facts },
        select: { connectionEpoch: true },
      });
      const row = {
        replicaId: this.replicaId,
        replicaUrl: this.#replicaUrl,
        connectionEpoch,
        connectedAt: now,
        lastHeartbeatAt: now,
      };
      await tx.machineConnection.upsert({
        where: { machineId: machine.machineId },
        create: { machineId: machine.machineId, ...row },
        update: row,
      });
      const retired = await retireOtherCredentials(tx, {
        machineId: machine.machineId,
        credentialHash: machine.credentialHash,
        now,
      });
      return { epoch: connectionEpoch, rotationRequested: retired.rotationRequested };
    });
    let end: (why: AgentChannelEnd) => void = () => undefined;
    const ended = new Promise<AgentChannelEnd>((resolve) => {
      end = resolve;
    });
    const channel: Channel = {
      machine,
      epoch,
      sink,
      end,
      ended,
      done: false,
      awaitingPing: undefined,
    };
    const older = this.#channels.get(machine.machineId);
    this.#channels.set(machine.machineId, channel);
    if (older !== undefined) this.#end(older, "replaced");
    if (rotationRequested) this.#send(channel, ROTATE_EVENT);
    return {
      ended,
      epoch,
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
   * One heartbeat round, for every channel held here: one whose agent left the last ping
   * unanswered ends `silent` (the machine reads offline from then on); one whose machine or
   * credential is revoked ends `revoked`; one whose row another connection took ends
   * `replaced`. The rest get a new ping, and an agent whose credential is marked for rotation
   * (asked on another replica) is told again. The agent's answer to a ping is what refreshes
   * its machine's lastSeenAt and its connection's heartbeat (reply()).
   */
  async heartbeatOnce(): Promise<void> {
    // A replica no agent is connected to asks nothing of the database.
    if (this.#channels.size === 0) return;
    const marked = await this.#markedForRotation();
    for (const channel of [...this.#channels.values()]) {
      const { machineId, credentialHash } = channel.machine;
      if (channel.awaitingPing !== undefined) {
        this.#end(channel, "silent");
        await this.#forget(machineId);
        continue;
      }
      const valid = await this.#db.machine.count({
        where: {
          id: machineId,
          revokedAt: null,
          credentials: { some: { credentialHash, revokedAt: null } },
        },
      });
      if (valid === 0) {
        this.#end(channel, "revoked");
        await this.#forget(machineId);
        continue;
      }
      const held = await this.#db.machineConnection.count({
        where: { machineId, replicaId: this.replicaId, connectionEpoch: channel.epoch },
      });
      // The machine connected again (through another replica, most likely): this socket is a
      // leftover the agent no longer reads, and the row is the new connection's.
      if (held === 0) {
        this.#end(channel, "replaced");
        continue;
      }
      const id = randomUUID();
      channel.awaitingPing = id;
      if (!this.#send(channel, { event: "ping", data: JSON.stringify({ id }) })) continue;
      if (marked.has(credentialHash)) this.#send(channel, ROTATE_EVENT);
    }
  }

  /**
   * Runs `op` on the machine: through its channel when held here, else relayed to the replica
   * holding it. The input is validated here first, the result when it comes back. Rejects with
   * a BoxError only: `not_found` for a machine not in `target.workspaceId` (whether or not it
   * exists elsewhere), `machine_offline` when no replica holds a live channel (or it is
   * revoked), `unavailable` when the holder cannot be reached, `timeout`, or the agent's code.
   */
  async call<K extends BoxOperationName>(
    target: MachineTarget & AgentCallOptions,
    op: K,
    input: OperationInput<K>,
  ): Promise<OperationResponse<K>> {
    const request = boxOperations[op].request.safeParse(input);
    if (!request.success)
      throw new BoxError("invalid_request", `${op}: ${z.prettifyError(request.error)}`);
    const timeoutMs = target.timeoutMs ?? this.#callTimeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      const channel = this.#channels.get(target.machineId);
      if (channel !== undefined) {
        if (channel.machine.workspaceId !== target.workspaceId) throw notFound(target);
        return checkedResult(
          target,
          op,
          await this.#callHere(channel, { op, input: request.data }, target),
        );
      }
      const lookup = await readMachineRoute(this.#db, target, await this.#clock.now());
      const route = relayTarget(target, lookup, this.replicaId);
      if (this.#relay === undefined || route.replicaUrl === null)
        throw new BoxError(
          "unavailable",
          `machine ${target.machineId}'s agent is connected to replica ${route.replicaId}, which this one cannot relay to: set BERTH_REPLICA_URL on every replica`,
        );
      try {
        const result = await this.#relay(
          { ...route, replicaUrl: route.replicaUrl },
          { ...target, connectionEpoch: route.connectionEpoch, op, input: request.data, timeoutMs },
          target.signal,
        );
        return checkedResult(target, op, result);
      } catch (error) {
        // The agent moved between our read and the holder's check: nothing ran; read again.
        if (
          error instanceof BoxError &&
          error.code === "stale_route" &&
          attempt < STALE_ROUTE_RETRIES
        )
          continue;
        throw error;
      }
    }
  }

  /**
   * A call relayed here by another replica: run only on the very connection it names. Another
   * connection (or none) answers `stale_route`, and nothing runs. Never relays further.
   */
  async serveRelay(request: RelayRequest): Promise<unknown> {
    const channel = this.#channels.get(request.machineId);
    if (
      channel === undefined ||
      channel.epoch !== request.connectionEpoch ||
      channel.machine.workspaceId !== request.workspaceId
    )
      throw new BoxError(
        "stale_route",
        `replica ${this.replicaId} does not hold connection ${String(request.connectionEpoch)} of machine ${request.machineId}`,
      );
    const parsed = boxOperations[request.op].request.safeParse(request.input);
    if (!parsed.success)
      throw new BoxError("invalid_request", `${request.op}: ${z.prettifyError(parsed.error)}`);
    const result = await this.#callHere(
      channel,
      { op: request.op, input: parsed.data },
      { timeoutMs: request.timeoutMs },
    );
    return checkedResult(request, request.op, result);
  }

  /**
   * Delivers the agent's reply: the answer to this channel's last ping (its machine is heard
   * from: lastSeenAt and the connection's heartbeat move to now), or to the call waiting under
   * that id. False when nothing waits for it (answered already, timed out, another machine's).
   */
  async reply(machine: AuthenticatedMachine, reply: AgentReply): Promise<boolean> {
    const channel = this.#channels.get(machine.machineId);
    if (channel !== undefined && channel.awaitingPing === reply.id) {
      channel.awaitingPing = undefined;
      await this.#heardFrom(channel);
      return true;
    }
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

  /** Sends the call down a channel held here and waits for its reply (validated by the caller). */
  #callHere(
    channel: Channel,
    call: { readonly op: BoxOperationName; readonly input: unknown },
    options: AgentCallOptions,
  ): Promise<unknown> {
    const { op, input } = call;
    const { machineId } = channel.machine;
    const id = randomUUID();
    return new Promise<unknown>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.#callTimeoutMs;
      const settle = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", abandon);
        this.#pending.delete(id);
      };
      const fail = (error: BoxError) => {
        settle();
        reject(error);
      };
      const abandon = () => {
        fail(new BoxError("timeout", `${op} on machine ${machineId}: abandoned`));
      };
      const timer = setTimeout(() => {
        fail(
          new BoxError(
            "timeout",
            `${op} on machine ${machineId}: no reply in ${String(timeoutMs)} ms`,
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
      if (options.signal?.aborted === true) {
        abandon();
        return;
      }
      options.signal?.addEventListener("abort", abandon, { once: true });
      if (!this.#send(channel, { event: "request", data: JSON.stringify({ id, op, input }) }))
        fail(
          new BoxError("unavailable", `machine ${machineId}'s channel ended before ${op} was sent`),
        );
    });
  }

  /** The agent answered a ping: its machine and its connection (this one's only) are fresh. */
  async #heardFrom(channel: Channel): Promise<void> {
    const now = await this.#clock.now();
    const { machineId } = channel.machine;
    await this.#db.$transaction([
      this.#db.machine.updateMany({ where: { id: machineId }, data: { lastSeenAt: now } }),
      this.#db.machineConnection.updateMany({
        where: { machineId, replicaId: this.replicaId, connectionEpoch: channel.epoch },
        data: { lastHeartbeatAt: now },
      }),
    ]);
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
      // The request was sent: it may have run. `unavailable` says the outcome is unknown.
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
