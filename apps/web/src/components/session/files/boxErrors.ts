import type { AppRouter } from "@berth/api";
import { TRPCClientError } from "@trpc/client";

/**
 * A failed file transfer (the plain HTTP routes answer errors in tRPC's shape, but not through
 * the tRPC client), carrying the same `data.berth` fields a procedure's error does.
 */
export class TransferFailure extends Error {
  override readonly name = "TransferFailure";
  constructor(
    message: string,
    readonly berth: { readonly code: string; readonly retryable: boolean } | undefined,
  ) {
    super(message);
  }
}

/** `data.berth` of a failed call or transfer: what to branch on. */
export function berthOf(error: unknown): { code: string; retryable: boolean } | undefined {
  if (error instanceof TransferFailure) return error.berth;
  if (error instanceof TRPCClientError) {
    const data = (error as TRPCClientError<AppRouter>).data as
      { berth?: { code: string; retryable: boolean } } | undefined;
    return data?.berth;
  }
  return undefined;
}

export function isVersionConflict(error: unknown): boolean {
  return berthOf(error)?.code === "version_conflict";
}
