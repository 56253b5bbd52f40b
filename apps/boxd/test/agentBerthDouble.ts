import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AGENT_HELLO_HEADER,
  AGENT_ROUTES,
  agentFactsSchema,
  agentReplySchema,
  enrollRequestSchema,
  type AgentFacts,
  type AgentReply,
  type BoxOperationName,
} from "@berth/box-protocol";

/**
 * Berth's side of the agent protocol (agentProtocol.ts), small enough to read in one go: the
 * double the agent's process tests run against, over real loopback HTTP. One enrollment code,
 * single use; one credential, revocable; one channel at a time.
 */
export class AgentBerthDouble {
  readonly code = `code-${randomUUID()}`;
  readonly machineId = randomUUID();
  readonly workspaceId = randomUUID();
  readonly credential = `cred-${randomUUID()}`;
  codeUsed = false;
  revoked = false;
  /** Replies alone refused (401), as when a credential is revoked while its channel is open. */
  refuseReplies = false;
  /** Every enrollment body and channel hello received, in order. */
  readonly enrollments: unknown[] = [];
  readonly hellos: { credential: string; facts: AgentFacts }[] = [];
  readonly #server = createServer((request, response) => {
    void this.#route(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  #channel: ServerResponse | undefined;
  #connected: (() => void)[] = [];
  readonly #waiting = new Map<string, (reply: AgentReply) => void>();

  static async start(): Promise<AgentBerthDouble> {
    const double = new AgentBerthDouble();
    double.#server.listen(0, "127.0.0.1");
    await once(double.#server, "listening");
    return double;
  }

  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${String(port)}`;
  }

  /** Resolves once `count` channels in all have been opened (at once if they have). */
  async connections(count: number): Promise<void> {
    while (this.hellos.length < count) {
      await new Promise<void>((resolve) => this.#connected.push(resolve));
    }
  }

  /** Sends one request down the channel; resolves with the agent's reply. */
  request(op: BoxOperationName, input: unknown): Promise<AgentReply> {
    const channel = this.#channel;
    if (channel === undefined) throw new Error("no agent connected");
    const id = randomUUID();
    const replied = new Promise<AgentReply>((resolve) => this.#waiting.set(id, resolve));
    channel.write(`event: request\ndata: ${JSON.stringify({ id, op, input })}\n\n`);
    return replied;
  }

  /** A heartbeat down the channel, as Berth sends every 15 s. */
  ping(): void {
    this.#channel?.write("event: ping\ndata: {}\n\n");
  }

  /** Ends the channel from Berth's side, as a restart would. */
  dropChannel(): void {
    this.#channel?.end();
    this.#channel = undefined;
  }

  async close(): Promise<void> {
    this.dropChannel();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async #route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const endpoint = `${request.method ?? ""} ${request.url ?? ""}`;
    if (endpoint === `POST ${AGENT_ROUTES.enroll}`) await this.#enroll(request, response);
    else if (endpoint === `GET ${AGENT_ROUTES.channel}`) this.#openChannel(request, response);
    else if (endpoint === `POST ${AGENT_ROUTES.replies}`) await this.#reply(request, response);
    else response.writeHead(404).end();
  }

  async #enroll(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = enrollRequestSchema.parse(await readJson(request));
    this.enrollments.push(body);
    if (body.code !== this.code || this.codeUsed) {
      sendJson(response, 403, { error: { message: "this enrollment code is used or unknown" } });
      return;
    }
    this.codeUsed = true;
    sendJson(response, 201, {
      machineId: this.machineId,
      workspaceId: this.workspaceId,
      name: body.name ?? "machine",
      credential: this.credential,
    });
  }

  #authorized(request: IncomingMessage): string | undefined {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    return bearer === this.credential && !this.revoked ? bearer : undefined;
  }

  #openChannel(request: IncomingMessage, response: ServerResponse): void {
    const credential = this.#authorized(request);
    if (credential === undefined) {
      sendJson(response, 401, { error: { message: "credential refused" } });
      return;
    }
    const hello = String(request.headers[AGENT_HELLO_HEADER] ?? "");
    const facts = agentFactsSchema.parse(
      JSON.parse(Buffer.from(hello, "base64url").toString("utf8")),
    );
    this.hellos.push({ credential, facts });
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    response.write("event: ping\ndata: {}\n\n");
    this.#channel = response;
    response.on("close", () => {
      if (this.#channel === response) this.#channel = undefined;
    });
    for (const resolve of this.#connected.splice(0)) resolve();
  }

  async #reply(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.refuseReplies || this.#authorized(request) === undefined) {
      sendJson(response, 401, { error: { message: "credential refused" } });
      return;
    }
    const reply = agentReplySchema.parse(await readJson(request));
    this.#waiting.get(reply.id)?.(reply);
    this.#waiting.delete(reply.id);
    response.writeHead(204).end();
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
