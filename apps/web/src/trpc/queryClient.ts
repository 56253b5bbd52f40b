import { QueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";

/** Whether a failed query may succeed if asked again: not when the API refused the request (4xx). */
function mayRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof TRPCClientError) {
    const status: unknown = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus;
    if (typeof status === "number" && status >= 400 && status < 500) return false;
  }
  return failureCount < 2;
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { staleTime: 30_000, retry: mayRetry } },
  });
}
