import "server-only";
import { appRouter } from "@berth/api";
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache, type ReactNode } from "react";
import { berthApi } from "../server/berthApi.ts";
import { makeQueryClient } from "./queryClient.ts";

/** One query client per server request: what its page fetched is handed to the browser. */
export const getServerQueryClient = cache(makeQueryClient);

/**
 * One API context per request (the caller is resolved once, however many queries run). These
 * calls are Berth's own, made while rendering the page the browser asked for (`ownRender`).
 */
const requestContext = cache(async () =>
  berthApi().createContext({ headers: await headers(), ownRender: true }),
);

/**
 * The procedures as query options for server components: a page fetches what its first screen
 * shows while it renders, so the HTML arrives with its rows instead of waiting for the browser
 * to ask, and the browser's queries start from that data.
 */
export const serverTrpc = createTRPCOptionsProxy({
  router: appRouter,
  ctx: requestContext,
  queryClient: getServerQueryClient,
});

/**
 * The procedures called directly, for data a server component renders itself: the browser gets
 * the rendered rows, not the data behind them.
 */
export const serverCaller = cache(async () => appRouter.createCaller(await requestContext()));

/** Hands what this request's server components fetched to the browser's query cache. */
export function HydrateClient({ children }: { children: ReactNode }) {
  return (
    <HydrationBoundary state={dehydrate(getServerQueryClient())}>{children}</HydrationBoundary>
  );
}
