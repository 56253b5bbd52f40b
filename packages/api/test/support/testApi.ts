import { randomInt } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BoxAccess } from "@berth/sandbox";
import type { Clock } from "@berth/sandbox/clock";
import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import { clientAddressHeader } from "../../src/http/clientAddress.ts";
import {
  apiEnvSchema,
  createBerthApi,
  type ApiLogger,
  type AppRouter,
  type BerthApi,
  type BoxDeps,
} from "../../src/index.ts";
import { createCallerFactory } from "../../src/trpc.ts";

export const testSecret = "test-secret-test-secret-test-secret-0123";
export const publicUrl = "http://127.0.0.1:3000";

/**
 * The real API over a test database, as the web process builds it: local boxes (real boxd)
 * in `dataDir`, which the caller removes (see useApiSuite).
 */
export function createTestApi(
  databaseUrl: string,
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    dataDir?: string;
    logger?: ApiLogger;
    /** Box services of the test's own making (a backend with racepoints, other timings). */
    boxes?: (deps: BoxDeps) => BoxAccess;
  } = {},
): BerthApi {
  const env = apiEnvSchema.parse({
    DATABASE_URL: databaseUrl,
    BERTH_SECRET: testSecret,
    BERTH_PUBLIC_URL: publicUrl,
    BERTH_DATA_DIR: options.dataDir ?? join(tmpdir(), "berth-api-test-unused"),
    ...options.env,
  });
  return createBerthApi(env, {
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.boxes === undefined ? {} : { boxes: options.boxes }),
  });
}

/** A client address of its own, so one test's attempts do not count against another's. */
export function freshAddress(): string {
  return `10.${String(randomInt(256))}.${String(randomInt(256))}.${String(randomInt(1, 255))}`;
}

/**
 * POSTs JSON to better-auth's handler exactly as a browser on Berth's page would, from a client
 * address of its own (set as Berth's HTTP edge would: here the test is the edge).
 */
export function authRequest(
  api: BerthApi,
  request: { path: string; body: unknown; headers?: Record<string, string> },
): Promise<Response> {
  const { path, body, headers = {} } = request;
  return api.handleAuth(
    new Request(`${publicUrl}/api/auth${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: publicUrl,
        [clientAddressHeader]: freshAddress(),
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
}

/** The session cookie a response set ("name=value"), if any. */
export function sessionCookie(response: Response): string | undefined {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .find((pair) => pair.startsWith("berth.session_token="));
}

/** Signs in through the real handler; throws unless it succeeded. */
export async function signIn(
  api: BerthApi,
  credentials: { email: string; password: string },
): Promise<string> {
  const response = await authRequest(api, { path: "/sign-in/email", body: credentials });
  const cookie = sessionCookie(response);
  if (!response.ok || cookie === undefined)
    throw new Error(`sign-in failed: ${String(response.status)} ${await response.text()}`);
  return cookie;
}

export type Credential = { cookie: string } | { token: string } | "anonymous";

/** The request headers a credential travels in (cookie callers come from Berth's own page). */
export function headersFor(credential: Credential): Headers {
  if (credential === "anonymous") return new Headers();
  if ("cookie" in credential) return new Headers({ cookie: credential.cookie, origin: publicUrl });
  return new Headers({ authorization: `Bearer ${credential.token}` });
}

/** A server-side caller whose context is built from request headers, as the route does. */
export async function callerAs(api: BerthApi, credential: Credential | Headers) {
  const headers = credential instanceof Headers ? credential : headersFor(credential);
  return createCallerFactory(api.router)(await api.createContext({ headers }));
}

/** A typed client of an API served over HTTP, sending `credential` as a browser or script would. */
export function httpClientAs(served: { readonly url: string }, credential: Credential) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${served.url}/api/trpc`,
        transformer: superjson,
        headers: () => Object.fromEntries(headersFor(credential)),
      }),
    ],
  });
}
