/**
 * Connection reuse for the API server. client-node (1.x) builds a new agent for every request
 * from the kubeconfig's TLS settings, so every request pays a new TCP connection and TLS
 * handshake — most of a request's time on a busy machine, and the bulk of a readiness wait's.
 * This keeps one keep-alive agent per TLS identity and hands it to each request in place of the
 * fresh one; a changed identity (a rotated client certificate) gets a new agent. Proxy agents are
 * left as they are (they carry their own connection handling).
 */
import http from "node:http";
import https from "node:https";

/** The options an agent was built with that decide which server it trusts and who it is. */
const IDENTITY_KEYS = [
  "ca",
  "cert",
  "key",
  "pfx",
  "passphrase",
  "rejectUnauthorized",
  "servername",
] as const;

type AgentOptions = https.AgentOptions & Record<string, unknown>;

export class ReusedConnections {
  #agent: http.Agent | undefined;
  #identity: readonly unknown[] = [];

  /** The keep-alive agent to use instead of `fresh` (a request's own agent from client-node). */
  reuse(fresh: http.Agent | https.Agent | undefined): http.Agent | https.Agent | undefined {
    if (fresh === undefined) return undefined;
    // Only the plain agents client-node makes; a proxy agent is some other class.
    const kind =
      fresh.constructor === https.Agent
        ? "https"
        : fresh.constructor === http.Agent
          ? "http"
          : undefined;
    if (kind === undefined) return fresh;
    const options = (fresh as unknown as { options: AgentOptions }).options;
    const identity = [kind, ...IDENTITY_KEYS.map((key) => options[key])];
    if (
      this.#agent === undefined ||
      identity.length !== this.#identity.length ||
      identity.some((value, index) => value !== this.#identity[index])
    ) {
      const settings = { ...options, keepAlive: true };
      const previous = this.#agent;
      this.#agent = kind === "https" ? new https.Agent(settings) : new http.Agent(settings);
      this.#identity = identity;
      // Only the old agent's idle connections close: destroy() would also cut requests under
      // way, which finish on it and leave their connections idle (unref'd, closed by the server).
      if (previous !== undefined) closeIdle(previous);
    }
    return this.#agent;
  }
}

function closeIdle(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) {
    for (const socket of sockets ?? []) socket.destroy();
  }
}
