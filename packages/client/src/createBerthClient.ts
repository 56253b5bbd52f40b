import type { AppRouter } from "@berth/api";
import {
  createTRPCClient,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  type TRPCClient,
} from "@trpc/client";
import { EventSource } from "eventsource";
import superjson from "superjson";
import { requestFetch } from "./requestFetch.ts";

export interface BerthClientOptions {
  /** Where Berth is served, e.g. http://127.0.0.1:3000 (its API is at /api/trpc). */
  readonly url: string;
  /** An API token (`berth_tok_…`), made in the dashboard under API tokens. */
  readonly token: string;
}

export type BerthClient = TRPCClient<AppRouter>;

/**
 * A typed client of Berth's API for scripts and agents: queries and mutations over plain
 * HTTP (one request per call), subscriptions (terminal output, session events) over server-sent events — which on
 * Node 20 need the `eventsource` package, given the token through its fetch since EventSource
 * has no header option. A subscription resumes from its last event id after a reconnect.
 */
export function createBerthClient(options: BerthClientOptions): BerthClient {
  const url = `${options.url.replace(/\/+$/, "")}/api/trpc`;
  const authorization = `Bearer ${options.token}`;
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (operation) => operation.type === "subscription",
        true: httpSubscriptionLink({
          url,
          transformer: superjson,
          EventSource,
          eventSourceOptions: {
            fetch: (input, init) =>
              fetch(input, { ...init, headers: { ...init.headers, authorization } }),
          },
        }),
        // Not batched: a batch waits a timer tick (a millisecond on Node) to gather calls, which
        // scripts and agents, calling one at a time, would pay on every call.
        false: httpLink({
          url,
          transformer: superjson,
          headers: { authorization },
          fetch: requestFetch,
        }),
      }),
    ],
  });
}
