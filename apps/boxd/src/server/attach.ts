import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  BoxError,
  httpStatusOf,
  rawText,
  streamRoutes,
  terminalClientMessageSchema,
  type TerminalEvent,
} from "@berth/box-protocol";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { MAX_SOCKET_BACKLOG_BYTES } from "../limits.ts";
import { admit } from "./auth.ts";
import type { BoxdContext } from "./context.ts";
import { errorBody, toBoxError } from "./respond.ts";

/** Terminal attach over WebSocket: /v1/terminals/attach?id=…&since=N, same token as HTTP. */
export function createAttachServer(context: BoxdContext) {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  function handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    try {
      // The upgrade is refused before any WebSocket exists: no token (or another pod's uid),
      // no socket.
      admit(request, context);
      const url = new URL(request.url ?? "/", "http://boxd");
      if (url.pathname !== streamRoutes.attach) throw new BoxError("not_found", "no such endpoint");
      const terminal = context.terminals.get(url.searchParams.get("id") ?? "");
      const since = Number(url.searchParams.get("since") ?? "0");
      if (!Number.isSafeInteger(since) || since < 0) {
        throw new BoxError("invalid_request", "since must be a non-negative integer");
      }
      sockets.handleUpgrade(request, socket, head, (ws) => {
        const send = (event: TerminalEvent) => {
          // A reader this far behind is dropped rather than buffered without end; it
          // reconnects with its last sequence number and loses nothing the buffer still has.
          if (ws.bufferedAmount > MAX_SOCKET_BACKLOG_BYTES) {
            ws.close(1013, "too far behind; reconnect with your last sequence");
            return;
          }
          ws.send(JSON.stringify(event));
          // Nothing follows an exit: end the connection once it is sent.
          if (event.type === "exit") ws.close(1000, "the terminal exited");
        };
        const { backlog, detach } = terminal.attach(since, send);
        for (const event of backlog) send(event);
        ws.on("message", (data: RawData) => {
          handleClientMessage(data, {
            write: (text) => terminal.write(text),
            resize: (cols, rows) => terminal.resize(cols, rows),
            refuse: (reason) => ws.close(1003, reason),
          });
        });
        ws.on("close", detach);
        ws.on("error", detach);
      });
    } catch (error) {
      refuseUpgrade(socket, toBoxError(error, context.logger));
    }
  }

  return {
    handleUpgrade,
    /** Closes every attached client (shutdown). */
    closeAll(): void {
      for (const client of sockets.clients) client.close(1001, "boxd is shutting down");
    },
    clients(): Set<WebSocket> {
      return sockets.clients;
    },
  };
}

interface TerminalActions {
  readonly write: (text: string) => void;
  readonly resize: (cols: number, rows: number) => void;
  readonly refuse: (reason: string) => void;
}

function handleClientMessage(data: RawData, actions: TerminalActions): void {
  let json: unknown;
  try {
    json = JSON.parse(rawText(data));
  } catch {
    actions.refuse("messages are JSON");
    return;
  }
  const parsed = terminalClientMessageSchema.safeParse(json);
  if (!parsed.success) {
    actions.refuse("unknown message");
    return;
  }
  const message = parsed.data;
  switch (message.type) {
    case "input":
      actions.write(message.data);
      return;
    case "resize":
      actions.resize(message.cols, message.rows);
      return;
  }
}

/** An HTTP error reply on the raw socket, then hang up. */
function refuseUpgrade(socket: Duplex, error: BoxError): void {
  const status = httpStatusOf(error.code);
  const body = JSON.stringify(errorBody(error));
  socket.end(
    `HTTP/1.1 ${status} ${error.code}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
