// An enrolled machine's agent reduced to its protocol, spoken over real HTTP to one replica:
// SSE in, POSTed replies out. It answers every ping, and every request with `answer`.
import {
  AGENT_HELLO_HEADER,
  AGENT_ROUTES,
  agentRequestSchema,
  type AgentFacts,
  type AgentRequest,
} from "@berth/box-protocol";

const FACTS: AgentFacts = { os: "linux", arch: "x64", hasDisplay: false, boxdVersion: "0.1.0" };

export interface ScriptedAgent {
  /** The requests it received, in order. */
  readonly requests: readonly AgentRequest[];
  /** Resolves once its stream has ended (the replica closed it, or disconnect()). */
  readonly ended: Promise<void>;
  disconnect(): void;
}

export async function connectScriptedAgent(options: {
  readonly server: string;
  readonly credential: string;
  readonly answer: (request: AgentRequest) => unknown;
}): Promise<ScriptedAgent> {
  const gone = new AbortController();
  const response = await fetch(`${options.server}${AGENT_ROUTES.channel}`, {
    headers: {
      authorization: `Bearer ${options.credential}`,
      [AGENT_HELLO_HEADER]: Buffer.from(JSON.stringify(FACTS)).toString("base64url"),
      accept: "text/event-stream",
    },
    signal: gone.signal,
  });
  if (response.status !== 200 || response.body === null)
    throw new Error(`the channel answered ${String(response.status)}: ${await response.text()}`);
  const requests: AgentRequest[] = [];
  const reply = (body: unknown) =>
    fetch(`${options.server}${AGENT_ROUTES.replies}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${options.credential}`,
      },
      body: JSON.stringify(body),
    }).then((posted) => posted.body?.cancel());
  const onEvent = (event: string, data: string) => {
    const parsed = JSON.parse(data) as { id?: string };
    if (event === "ping" && parsed.id !== undefined)
      void reply({ id: parsed.id, ok: true, result: {} });
    if (event !== "request") return;
    const request = agentRequestSchema.parse(parsed);
    requests.push(request);
    void reply({ id: request.id, ok: true, result: options.answer(request) });
  };
  const body = response.body.pipeThrough(new TextDecoderStream());
  const ended = (async () => {
    // Berth writes each event whole (`event: …\ndata: …\n\n`) and comments as `: …` blocks.
    let buffered = "";
    try {
      for await (const chunk of body as AsyncIterable<string>) {
        buffered += chunk;
        for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
          const lines = buffered.slice(0, end).split("\n");
          buffered = buffered.slice(end + 2);
          const field = (name: string) =>
            lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
          const event = field("event");
          const data = field("data");
          if (event !== undefined && data !== undefined) onEvent(event, data);
        }
      }
    } catch {
      // Disconnected: the stream's end is all there is to tell.
    }
  })();
  return { requests, ended, disconnect: () => gone.abort() };
}
