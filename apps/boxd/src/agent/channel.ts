import {
  AGENT_EVENTS,
  AGENT_HELLO_HEADER,
  AGENT_ROUTES,
  agentRequestSchema,
  type AgentFacts,
  type AgentReply,
  type AgentRequest,
} from "@berth/box-protocol";
import { createParser } from "eventsource-parser";
import { z } from "zod";
import { describeFetchError, refusalMessage } from "./httpMessage.ts";

/** How one channel connection ended: the credential refused, or anything else (reconnect). */
export type ChannelEnd =
  | { readonly kind: "revoked" }
  | { readonly kind: "stopped" }
  | { readonly kind: "lost"; readonly reason: string; readonly connected: boolean };

/**
 * Silence after which a channel is taken for dead and dialled again: Berth pings every 15 s, so
 * this is four missed pings. Without it a connection lost without a FIN (a NAT forgetting it, a
 * laptop's sleep) would hold the agent on a channel no request can come down, for good.
 */
export const CHANNEL_IDLE_MS = 60_000;

export interface ChannelOptions {
  readonly server: string;
  readonly credential: string;
  readonly facts: AgentFacts;
  /** Aborted: the channel closes and holdChannel resolves `stopped`. */
  readonly signal: AbortSignal;
  readonly onConnected: () => void;
  /** A request came down; the reply is posted by the caller (replies run concurrently). */
  readonly onRequest: (request: AgentRequest) => void;
  /**
   * A `request` event that is not a valid AgentRequest: logged; answered under its `id` when it
   * has one (an operation this agent is too old to know, say), so the server's caller hears why
   * at once instead of at its call timeout.
   */
  readonly onMalformed: (reason: string, id: string | undefined) => void;
  /** A `rotate` event: an admin asked for a new credential (rotate.ts). */
  readonly onRotate: () => void;
  /**
   * A `ping` carrying an id: Berth's heartbeat, answered with a reply under that id (a machine
   * whose agent leaves one unanswered for a heartbeat period reads offline).
   */
  readonly onPing: (id: string) => void;
  /** Default CHANNEL_IDLE_MS; shorter in tests. */
  readonly idleMs?: number;
}

/**
 * Holds one channel: GET with the credential and the machine's facts, then Server-Sent Events
 * until the stream ends. Never throws: every end is a ChannelEnd.
 */
export async function holdChannel(options: ChannelOptions): Promise<ChannelEnd> {
  const hello = Buffer.from(JSON.stringify(options.facts)).toString("base64url");
  const idleMs = options.idleMs ?? CHANNEL_IDLE_MS;
  const idle = new AbortController();
  let idleTimer = setTimeout(() => idle.abort(), idleMs);
  try {
    return await readChannel(options, { hello, idle, resetIdle });
  } finally {
    clearTimeout(idleTimer);
  }

  function resetIdle(): void {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => idle.abort(), idleMs);
  }
}

async function readChannel(
  options: ChannelOptions,
  watch: { readonly hello: string; readonly idle: AbortController; readonly resetIdle: () => void },
): Promise<ChannelEnd> {
  const { hello, idle } = watch;
  const idleEnd = (connected: boolean): ChannelEnd => ({
    kind: "lost",
    reason: "the channel was silent too long",
    connected,
  });
  let response: Response;
  try {
    response = await fetch(`${options.server}${AGENT_ROUTES.channel}`, {
      headers: {
        authorization: `Bearer ${options.credential}`,
        accept: "text/event-stream",
        [AGENT_HELLO_HEADER]: hello,
      },
      signal: AbortSignal.any([options.signal, idle.signal]),
    });
  } catch (error) {
    if (options.signal.aborted) return { kind: "stopped" };
    if (idle.signal.aborted) return idleEnd(false);
    return { kind: "lost", reason: describeFetchError(error), connected: false };
  }
  if (response.status === 401) {
    await response.body?.cancel();
    return { kind: "revoked" };
  }
  if (!response.ok || response.body === null) {
    const reason = `HTTP ${String(response.status)}: ${await refusalMessage(response)}`;
    return { kind: "lost", reason, connected: false };
  }
  options.onConnected();
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === AGENT_EVENTS.rotate) {
        options.onRotate();
        return;
      }
      if (event.event === AGENT_EVENTS.ping) {
        const id = pingId(event.data);
        if (id !== undefined) options.onPing(id);
        return;
      }
      if (event.event !== AGENT_EVENTS.request) return; // unknown events: keep-alives
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        options.onMalformed("request event data is not JSON", undefined);
        return;
      }
      const parsed = agentRequestSchema.safeParse(data);
      if (parsed.success) options.onRequest(parsed.data);
      else {
        const issue = parsed.error.issues[0];
        const reason = `${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid request"}`;
        options.onMalformed(reason, requestId(data));
      }
    },
  });
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      watch.resetIdle();
      parser.feed(decoder.decode(chunk, { stream: true }));
    }
    return { kind: "lost", reason: "the server ended the channel", connected: true };
  } catch (error) {
    if (options.signal.aborted) return { kind: "stopped" };
    if (idle.signal.aborted) return idleEnd(true);
    return { kind: "lost", reason: describeFetchError(error), connected: true };
  }
}

/** The id a ping asks to be answered under; undefined for a bare keep-alive. */
function pingId(data: string): string | undefined {
  try {
    const parsed = pingSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data.id : undefined;
  } catch {
    return undefined;
  }
}

const pingSchema = z.object({ id: z.string().min(1).max(64) });

/** What posting a reply did; `revoked`: the credential is refused (401). */
export type ReplyOutcome = "posted" | "revoked" | "failed";

export async function postReply(options: {
  readonly server: string;
  readonly credential: string;
  readonly reply: AgentReply;
}): Promise<{ outcome: ReplyOutcome; reason?: string }> {
  try {
    const response = await fetch(`${options.server}${AGENT_ROUTES.replies}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${options.credential}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(options.reply),
    });
    if (response.status === 401) return { outcome: "revoked" };
    if (!response.ok) {
      return {
        outcome: "failed",
        reason: `HTTP ${String(response.status)}: ${await refusalMessage(response)}`,
      };
    }
    await response.body?.cancel();
    return { outcome: "posted" };
  } catch (error) {
    return { outcome: "failed", reason: describeFetchError(error) };
  }
}

/** The id of a request the agent cannot serve, if it carries a well-formed one. */
function requestId(data: unknown): string | undefined {
  const parsed = agentRequestSchema.shape.id.safeParse(
    typeof data === "object" && data !== null ? (data as { id?: unknown }).id : undefined,
  );
  return parsed.success ? parsed.data : undefined;
}
