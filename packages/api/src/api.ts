import { createDbClient, type DbClient } from "@berth/db";
import { resolve } from "node:path";
import {
  AgentChannels,
  type AgentChannelsOptions,
  ArchiveRestorer,
  BoxAccess,
  defaultBoxdEntry,
  archiveStoreFromEnv,
  backendsFromEnv,
  lazyInstallationId,
  leaseConfigFromEnv,
  type LeaseWakeups,
  machineBoxClient,
  type MachineClients,
  progressRecorder,
  SpawnerSystem,
  WorkspaceArchiver,
} from "@berth/sandbox";
import { DatabaseClock, type Clock } from "@berth/sandbox/clock";
import { LeaseEventFeed, type LeaseEventFeedSettings } from "@berth/sandbox/events";
import { TRPCError } from "@trpc/server";
import { createAgentEnrollHandler } from "./agent/enrollHandler.ts";
import { agentBundlePath, createBundleHandler } from "./agent/bundleHandler.ts";
import { createChannelHandler } from "./agent/channelHandler.ts";
import { createRepliesHandler } from "./agent/repliesHandler.ts";
import { createRotateHandler } from "./agent/rotateHandler.ts";
import { httpRelay } from "./agent/httpRelay.ts";
import { createRelayHandler } from "./agent/relayHandler.ts";
import { deriveSecret } from "./auth/secrets.ts";
import { createAuth, type BerthAuth } from "./auth/betterAuth.ts";
import { CredentialRefusedError, resolveCaller } from "./auth/caller.ts";
import { TokenCache } from "./auth/tokenCache.ts";
import type { ApiEnv } from "./env.ts";
import { createFileTransfers } from "./files/fileTransfers.ts";
import { compileTrustedProxies, type TrustedProxies } from "./http/clientAddress.ts";
import { fromOwnPages } from "./http/ownOrigin.ts";
import { createTrpcHandler } from "./http/trpcHandler.ts";
import { defaultApiLogger, type ApiLogger } from "./logger.ts";
import { appRouter } from "./root.ts";
import type { ApiContext, BuildInfo } from "./trpc.ts";

/** What box services are built over: the database, its clock, and what they reach. */
export interface BoxDeps {
  readonly db: DbClient;
  readonly clock: Clock;
  /** Wakes calls waiting for a lease another call is warming. */
  readonly wakeups: LeaseWakeups;
  /** Reaches the enrolled machines sessions are swapped onto. */
  readonly machines: MachineClients;
}

/** One process's API: the router, sign-in, and the per-request context over one db client. */
export interface BerthApi {
  readonly router: typeof appRouter;
  readonly auth: BerthAuth;
  /** better-auth's handler for everything under /api/auth (sign-in, sign-up, sign-out). */
  handleAuth(request: Request): Promise<Response>;
  /** tRPC at /api/trpc, logging internal errors (http/trpcHandler.ts). */
  handleTrpc(request: Request): Promise<Response>;
  /** Streaming file upload and download under /api/files (files/fileTransfers.ts). */
  handleFiles(request: Request): Promise<Response>;
  /** POST /agent/v1/enroll: a machine's agent redeems a one-time code (agent/enrollHandler.ts). */
  handleAgentEnroll(request: Request): Promise<Response>;
  /**
   * Resolves the caller from the request's cookie or bearer token. `ownRender` marks the calls
   * Berth's own server makes while rendering a page (the dashboard's RSC caller): the browser
   * asked for the page, not for these calls, so they count as coming from Berth's own pages.
   */
  createContext(request: { headers: Headers; ownRender?: boolean }): Promise<ApiContext>;
  /** BERTH_TRUSTED_PROXIES, compiled: whose X-Forwarded-For an HTTP edge believes. */
  readonly trustedProxies: TrustedProxies;
  /** Resolves once the settles and holder releases queued behind answers sent have landed. */
  settled(): Promise<void>;
  /** Whether this process answers API tokens from its cache now (its LISTEN connection is up). */
  tokensTrusted(): boolean;
  /** The agent channels this process holds (enrolled machines' agents connected to it). */
  readonly agentChannels: AgentChannels;
  /** GET /agent/v1/channel: an agent's channel, Server-Sent Events (agent/channelHandler.ts). */
  handleAgentChannel(request: Request): Promise<Response>;
  /** POST /agent/v1/replies: an agent's reply to a request of its channel. */
  handleAgentReplies(request: Request): Promise<Response>;
  /** POST /agent/v1/rotate: an agent exchanges its credential for a new one (agent/rotateHandler.ts). */
  handleAgentRotate(request: Request): Promise<Response>;
  /** POST /api/internal/relay: another replica's call for a machine this one holds (agent/relayHandler.ts). */
  handleRelay(request: Request): Promise<Response>;
  /** GET /agent/boxd.mjs: the single-file agent, streamed from boxd's build. */
  handleAgentBundle(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/** The origins a browser may send cookie-authenticated mutations from. */
export function trustedOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  const loopback = ["127.0.0.1", "localhost", "[::1]"];
  if (!loopback.includes(url.hostname)) return [url.origin];
  // On one machine the same server answers to every loopback name.
  return loopback.map((host) => `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`);
}

/** Builds the API from validated environment; the only place the API's db client is made. */
export function createBerthApi(
  env: ApiEnv,
  options: {
    clock?: Clock;
    /** Box services, built over what BoxDeps names. */
    boxes?: (deps: BoxDeps) => BoxAccess;
    /** How live-event subscribers are woken (default: LISTEN on Postgres, polling on PGlite). */
    leaseEvents?: LeaseEventFeedSettings;
    /** Where internal errors are logged (default: pino's JSON lines on stdout). */
    logger?: ApiLogger;
    /** The agent channels' replica id, heartbeat interval (0: tests drive it) and call limit. */
    agentChannels?: Pick<AgentChannelsOptions, "replicaId" | "heartbeatMs" | "callTimeoutMs">;
  } = {},
): BerthApi {
  const db: DbClient = createDbClient({ connectionString: env.DATABASE_URL });
  const clock = options.clock ?? new DatabaseClock(db);
  // One per API: its LISTEN connection (opened by the first subscriber) serves every subscriber.
  const leaseEvents = new LeaseEventFeed({
    db,
    connectionString: env.DATABASE_URL,
    ...options.leaseEvents,
  });
  const tokens = new TokenCache({ db, connectionString: env.DATABASE_URL });
  // One per process: the replica holding a machine's channel runs its calls; the others relay
  // them there, presenting a key only replicas can derive.
  const relayKey = deriveSecret(env.BERTH_SECRET, "agent-relay");
  const agentChannels = new AgentChannels({
    db,
    clock,
    relay: httpRelay(relayKey),
    ...(env.BERTH_REPLICA_URL === undefined ? {} : { replicaUrl: env.BERTH_REPLICA_URL }),
    ...options.agentChannels,
  });
  const machines: MachineClients = (target) => machineBoxClient(agentChannels, target);
  const boxes = (options.boxes ?? configuredBoxes(env))({
    db,
    clock,
    wakeups: leaseEvents,
    machines,
  });
  const origins = trustedOrigins(env.BERTH_PUBLIC_URL);
  const auth = createAuth({
    db,
    berthSecret: env.BERTH_SECRET,
    publicUrl: env.BERTH_PUBLIC_URL,
    trustedOrigins: origins,
    signUp: env.BERTH_SIGNUP,
    signInLimits: {
      perAddress: { max: env.BERTH_SIGNIN_ATTEMPTS_PER_MINUTE, windowSeconds: 60 },
      perAccount: { max: env.BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR, windowSeconds: 3600 },
    },
    clock,
  });
  const build: BuildInfo = {
    version: env.BERTH_VERSION,
    gitRevision: env.BERTH_GIT_REVISION,
    databaseUrl: env.DATABASE_URL,
  };
  async function createContext({
    headers,
    ownRender = false,
  }: {
    headers: Headers;
    ownRender?: boolean;
  }): Promise<ApiContext> {
    const caller = await resolveCaller({ headers, db, auth, clock, tokens }).catch(
      (error: unknown) => {
        if (error instanceof CredentialRefusedError)
          throw new TRPCError({ code: "UNAUTHORIZED", message: error.message, cause: error });
        throw error;
      },
    );
    return {
      db,
      build,
      auth,
      clock,
      publicUrl: env.BERTH_PUBLIC_URL,
      defaultBackend: env.BERTH_BACKEND,
      caller,
      sameOrigin: ownRender || fromOwnPages(headers, origins),
      leaseEvents,
      boxes,
      tokens,
      agentChannels,
    };
  }
  const logger = options.logger ?? defaultApiLogger();
  return {
    router: appRouter,
    auth,
    handleAuth: (request) => auth.handler(request),
    createContext,
    trustedProxies: compileTrustedProxies(env.BERTH_TRUSTED_PROXIES),
    handleTrpc: createTrpcHandler({ router: appRouter, createContext, logger }),
    handleFiles: createFileTransfers({
      createContext,
      maxUploadBytes: env.BERTH_MAX_UPLOAD_BYTES,
      logger,
    }),
    handleAgentEnroll: createAgentEnrollHandler({ db, clock, logger }),
    settled: () => boxes.settled(),
    tokensTrusted: () => tokens.trusted,
    agentChannels,
    handleAgentChannel: createChannelHandler({ db, channels: agentChannels }),
    handleAgentReplies: createRepliesHandler({ db, channels: agentChannels }),
    handleAgentRotate: createRotateHandler({ db, clock }),
    handleRelay: createRelayHandler({ channels: agentChannels, relayKey, logger }),
    handleAgentBundle: createBundleHandler({
      // The agent bundle is built beside boxd's entry (the launcher names it in a web server).
      bundlePath: agentBundlePath(env.BERTH_BOXD_ENTRY ?? defaultBoxdEntry()),
    }),
    async close() {
      await agentChannels.close();
      await boxes.settled();
      await leaseEvents.close();
      await tokens.close();
      await db.$disconnect();
    },
  };
}

/**
 * Box services over the configured backends (local; Kubernetes as BERTH_BACKEND and
 * BERTH_KUBE_TEMPLATE say), restoring from the archive store.
 */
function configuredBoxes(env: ApiEnv): (deps: BoxDeps) => BoxAccess {
  return ({ db, clock, wakeups, machines }) => {
    const resources = { db, clock, config: leaseConfigFromEnv(env) };
    // Both backends label their boxes with the one installation id (the orphan sweep's scope).
    const installationId = lazyInstallationId({ db, dataDir: resolve(env.BERTH_DATA_DIR) });
    const { registry: backends } = backendsFromEnv({
      env,
      local: {
        dataDir: resolve(env.BERTH_DATA_DIR),
        secret: env.BERTH_SECRET,
        isolation: "auto",
        installationId,
        ...(env.BERTH_BOXD_ENTRY === undefined ? {} : { boxdEntry: env.BERTH_BOXD_ENTRY }),
      },
      kubernetes: { secret: env.BERTH_SECRET, installationId },
    });
    // A folder or a bucket, as BERTH_ARCHIVE_URL / BERTH_ARCHIVE_DIR say.
    const store = archiveStoreFromEnv(env, db);
    // Capture and restore progress goes to Postgres, so any replica's subscribers see it.
    const onProgress = progressRecorder(db);
    const restorer = new ArchiveRestorer({ db, store, onProgress });
    const archiver = new WorkspaceArchiver({
      resources,
      backends,
      store,
      keepRevisions: env.BERTH_ARCHIVE_KEEP,
      onProgress,
    });
    return new BoxAccess({
      resources,
      backends,
      spawner: new SpawnerSystem({ resources, backends, restorer }),
      archiver,
      wakeups,
      machines,
    });
  };
}
