import type { AppRouter } from "@berth/api";
import { TRPCClientError } from "@trpc/client";

/**
 * A sentence to show for a failed call. Input errors list each field's problem (the API's zod
 * messages read "must not be empty", so the field name goes first); anything else shows the
 * API's own message, which is written for people.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const { data, message } = error as TRPCClientError<AppRouter>;
    const zod = data?.zodError;
    if (zod !== null && zod !== undefined) {
      const fields = Object.entries(zod.fieldErrors as Record<string, unknown>).map(
        ([field, problems]) => `${field} ${Array.isArray(problems) ? problems.join(", ") : ""}`,
      );
      const all = [...zod.formErrors, ...fields];
      if (all.length > 0) return `Check the form: ${all.join("; ")}.`;
    }
    return message;
  }
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}
