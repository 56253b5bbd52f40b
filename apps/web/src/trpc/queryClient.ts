import { QueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import superjson from "superjson";

/** Whether a failed query may succeed if asked again: not when the API refused the request (4xx). */
function mayRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof TRPCClientError) {
    const status: unknown = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus;
    if (typeof status === "number" && status >= 400 && status < 500) return false;
  }
  return failureCount < 2;
}

/**
 * Data fetched on the server crosses to the browser through superjson, as the API's answers
 * do, so dates stay dates.
 */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: mayRetry },
      dehydrate: { serializeData: superjson.serialize },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
