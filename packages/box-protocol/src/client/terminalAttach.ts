import type { IncomingMessage } from "node:http";
import { WebSocket, type RawData } from "ws";
import { BoxError } from "../boxError.ts";
import { boxErrorFromResponse } from "../errors.ts";
import { streamRoutes } from "../operations.ts";
import {
  terminalEventSchema,
  type TerminalClientMessage,
  type TerminalEvent,
} from "../schemas/terminals.ts";
import { callerHeaders, endpointUrl, transportError, type ClientContext } from "./http.ts";

export interface AttachTerminalOptions {
  readonly id: string;
  /** The last sequence number this client already has; 0 (default) replays all that is kept. */
  readonly since?: number;
  /** Called for each event in order: replayed output first, then live output. */
  readonly onEvent: (event: TerminalEvent) => void;
}

export interface TerminalConnection {
  /** Types into the terminal. */
  send(data: string): void;
  resize(size: { readonly cols: number; readonly rows: number }): void;
  /** The latest output sequence number received: pass it as `since` to resume. */
  lastSeq(): number;
  /** Closes this connection; the terminal itself keeps running. */
  close(): Promise<void>;
  /** Settles when the connection ends, whoever ended it. */
  readonly closed: Promise<void>;
}

/** Attaches over a WebSocket; refusals (401, unknown terminal) reject as BoxErrors. */
export async function attachTerminal(
  context: ClientContext,
  options: AttachTerminalOptions,
): Promise<TerminalConnection> {
  const since = options.since ?? 0;
  const url = endpointUrl(context.baseUrl, streamRoutes.attach, {
    id: options.id,
    since: String(since),
  });
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  // ws names a Unix socket in the URL itself: ws+unix:<socket path>:<request path>.
  const target =
    context.socketPath === undefined
      ? url
      : `ws+unix:${context.socketPath}:${url.pathname}${url.search}`;
  const socket = new WebSocket(target, { headers: callerHeaders(context) });
  let lastSeq = since;
  let failure: BoxError | undefined;
  // Listening before `open`: the replay may arrive in the same read as the upgrade reply.
  socket.on("message", (data: RawData) => {
    const event = parseEvent(data);
    if (event === undefined) {
      failure = new BoxError("internal", "boxd sent a malformed terminal event");
      socket.terminate();
      return;
    }
    if (event.type === "output") lastSeq = event.seq;
    options.onEvent(event);
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let refused = false;
    socket.once("open", () => resolve());
    socket.once("unexpected-response", (_request, response: IncomingMessage) => {
      // boxd refused the upgrade with an HTTP error body: that body is the answer.
      refused = true;
      readBody(response).then(
        (body) => reject(boxErrorFromResponse(response.statusCode ?? 500, body)),
        (error: unknown) => reject(transportError(error)),
      );
    });
    socket.on("error", (error) => {
      if (!refused) reject(failure ?? transportError(error));
    });
  });
  const transmit = (message: TerminalClientMessage) => {
    if (socket.readyState !== WebSocket.OPEN) {
      throw new BoxError("unavailable", "the terminal connection is closed");
    }
    socket.send(JSON.stringify(message));
  };
  return {
    send: (data) => transmit({ type: "input", data }),
    resize: ({ cols, rows }) => transmit({ type: "resize", cols, rows }),
    lastSeq: () => lastSeq,
    close: async () => {
      if (socket.readyState !== WebSocket.CLOSED) socket.close(1000);
      await closed;
    },
    closed,
  };
}

function parseEvent(data: RawData): TerminalEvent | undefined {
  const text = rawText(data);
  try {
    const parsed = terminalEventSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** ws hands text frames over as a Buffer, or as fragments, or (binaryType) an ArrayBuffer. */
export function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
