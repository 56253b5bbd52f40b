import { setTimeout as delay } from "node:timers/promises";
import { AGENT_ROUTES, type AgentReply, type AgentRequest } from "@berth/box-protocol";
import { pino, type Logger } from "pino";
import { AGENT_USAGE, parseAgentArgs } from "./agentArgs.ts";
import { openAgentBox, type AgentBox } from "./agentBox.ts";
import { Backoff } from "./backoff.ts";
import { holdChannel, postReply } from "./channel.ts";
import { credentialPath, readCredential, type StoredCredential } from "./credentialFile.ts";
import { enroll } from "./enroll.ts";
import { readAgentEnv } from "./env.ts";
import { AGENT_EXIT, AgentExit } from "./exitCodes.ts";
import { agentFacts } from "./facts.ts";
import { CredentialKeeper } from "./rotate.ts";

/**
 * `boxd agent …`: enrolls (when given a code), then holds the channel to Berth and serves its
 * requests until stopped; reconnects with backoff. Exits with an AGENT_EXIT code.
 */
export async function runAgentMain(argv: readonly string[]): Promise<never> {
  try {
    await runAgent(argv);
    process.exit(AGENT_EXIT.stopped);
  } catch (error) {
    if (error instanceof AgentExit) {
      process.stderr.write(`${error.message}\n`);
      process.exit(error.code);
    }
    process.stderr.write(
      `boxd agent failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(AGENT_EXIT.failed);
  }
}

async function runAgent(argv: readonly string[]): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${AGENT_USAGE}\n`);
    return;
  }
  if (process.platform !== "linux") {
    throw new AgentExit(
      AGENT_EXIT.usage,
      `boxd agent runs on Linux only for now (this is ${process.platform}): macOS and Windows agents are a later release`,
    );
  }
  const env = readAgentEnv();
  const options = parseAgentArgs(argv, env);
  const logger = pino({ base: { service: "boxd-agent", pid: process.pid } });
  const facts = agentFacts(env.hasDisplay);

  let stored: StoredCredential | undefined;
  if (options.enroll !== undefined) {
    const enrolled = await enroll({
      server: options.server,
      stateDir: options.stateDir,
      code: options.enroll,
      name: options.name,
      facts,
    });
    stored = enrolled.stored;
    logger.info(
      { machineId: stored.machineId, name: stored.name, credentialFile: enrolled.path },
      "enrolled",
    );
  } else {
    stored = readCredential(options.stateDir, options.server);
    if (stored === undefined) {
      throw new AgentExit(
        AGENT_EXIT.usage,
        `boxd agent: no credential stored for ${options.server} (${credentialPath(options.stateDir, options.server)}): pass --enroll CODE (made by \`berth machines enroll\`)\n${AGENT_USAGE}`,
      );
    }
  }

  const box = await openAgentBox({ root: options.root, machineId: stored.machineId, logger });
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, "stopping");
    stop.abort();
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    const credentials = new CredentialKeeper(options.stateDir, stored, logger);
    await serveChannel({ server: options.server, credentials, facts, box, logger, stop });
  } finally {
    await box.close();
  }
}

/**
 * Holds the channel, reconnecting with backoff, until stopped or revoked; after a credential
 * rotation, at once with the new credential.
 */
async function serveChannel(session: {
  readonly server: string;
  readonly credentials: CredentialKeeper;
  readonly facts: ReturnType<typeof agentFacts>;
  readonly box: AgentBox;
  readonly logger: Logger;
  readonly stop: AbortController;
}): Promise<void> {
  const { server, credentials, box, logger, stop } = session;
  const backoff = new Backoff();
  // A 401 on a reply ends the channel too: the credential is gone, so is everything it held.
  // Read through functions: both change under the loop's awaits, out of the compiler's sight.
  const revocation = new AbortController();
  const revoked = () => revocation.signal.aborted;
  const stopped = () => stop.signal.aborted;
  const connection = { abort: new AbortController() };
  const revoke = () => {
    revocation.abort();
    connection.abort.abort();
  };
  stop.signal.addEventListener("abort", () => connection.abort.abort());
  // Set when a rotation saved a new credential: the channel is dialled again with it, no backoff.
  const rotation = { saved: false };
  const rotate = () => {
    void credentials.rotate().then((result) => {
      if (result === "revoked") revoke();
      if (result !== "rotated") return;
      rotation.saved = true;
      connection.abort.abort();
    });
  };

  /** Posts a reply (to a request, or a ping); a 401 for the current credential revokes. */
  const answer = async (reply: AgentReply): Promise<{ delivered: boolean; reason?: string }> => {
    const { credential } = credentials.current;
    const posted = await postReply({ server, credential, reply });
    // A 401 for a credential rotated away meanwhile says nothing of the current one.
    if (posted.outcome === "revoked" && credential === credentials.current.credential) revoke();
    return {
      delivered: posted.outcome === "posted",
      ...(posted.reason === undefined ? {} : { reason: posted.reason }),
    };
  };

  const serve = (request: AgentRequest) => {
    const started = performance.now();
    void box.serve(request).then(async (reply) => {
      const ms = Math.round(performance.now() - started);
      const posted = await answer(reply);
      if (!posted.delivered && posted.reason !== undefined) {
        logger.warn(
          { id: request.id, op: request.op, reason: posted.reason },
          "reply not delivered",
        );
      }
      logger.info(
        {
          id: request.id,
          op: request.op,
          ms,
          ok: reply.ok,
          ...(reply.ok ? {} : { code: reply.error.code }),
        },
        "request served",
      );
    });
  };

  for (;;) {
    connection.abort = new AbortController();
    if (stopped()) return;
    let connectedAt: number | undefined;
    const stored = credentials.current;
    const end = await holdChannel({
      server,
      credential: stored.credential,
      facts: session.facts,
      signal: connection.abort.signal,
      onConnected: () => {
        connectedAt = Date.now();
        logger.info({ server, machineId: stored.machineId }, "connected");
      },
      onRequest: serve,
      onMalformed: (reason, id) => {
        logger.warn(
          { id, reason },
          id === undefined ? "malformed request ignored" : "request refused",
        );
        if (id === undefined) return;
        const message = `This agent (boxd ${session.facts.boxdVersion}) cannot serve the request (${reason}): fetch the current agent from ${server}${AGENT_ROUTES.bundle} and restart it.`;
        void answer({ id, ok: false, error: { code: "unsupported", message } });
      },
      onRotate: rotate,
      onPing: (id) => void answer({ id, ok: true, result: {} }),
    });
    if (end.kind === "revoked" || revoked()) break;
    if (rotation.saved && !stopped()) {
      rotation.saved = false;
      continue;
    }
    if (end.kind === "stopped" || stopped()) return;
    logger.warn({ reason: end.reason }, "disconnected");
    const wait = backoff.afterEnd(connectedAt === undefined ? undefined : Date.now() - connectedAt);
    logger.info({ ms: wait }, `reconnect in ${String(wait)} ms`);
    try {
      await delay(wait, undefined, { signal: stop.signal });
    } catch {
      return; // stopped while waiting
    }
  }
  throw new AgentExit(
    AGENT_EXIT.revoked,
    `boxd agent: ${server} refused this machine's credential: it was revoked. Enroll again with a new code (--enroll CODE).`,
  );
}
