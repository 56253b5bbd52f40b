/**
 * The MachineRelay port over HTTP: POSTs the call to the holding replica's RELAY_PATH with the
 * replicas' derived key, and turns every answer into the result or a BoxError.
 */
import { BoxError, errorBodySchema } from "@berth/box-protocol";
import type { MachineRelay } from "@berth/sandbox";
import { z } from "zod";
import { RELAY_PATH } from "./relayHandler.ts";

/** Beyond the call's own limit: the hop between replicas and the holder's own checks. */
const RELAY_MARGIN_MS = 5_000;

const relayAnswerSchema = z.object({ result: z.unknown() });

export function httpRelay(relayKey: string): MachineRelay {
  return async (route, request, signal) => {
    const limit = AbortSignal.timeout(request.timeoutMs + RELAY_MARGIN_MS);
    let response: Response;
    try {
      response = await fetch(`${route.replicaUrl}${RELAY_PATH}`, {
        method: "POST",
        headers: { authorization: `Bearer ${relayKey}`, "content-type": "application/json" },
        body: JSON.stringify(request),
        signal: signal === undefined ? limit : AbortSignal.any([signal, limit]),
      });
    } catch (error) {
      // Sent or not, the holder may have run it: `unavailable` says the outcome is unknown.
      throw new BoxError(
        limit.aborted ? "timeout" : "unavailable",
        `replica ${route.replicaId} at ${route.replicaUrl} did not answer the relayed ${request.op}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok) {
      const answer = relayAnswerSchema.safeParse(body);
      if (answer.success) return answer.data.result;
    }
    const refusal = errorBodySchema.safeParse(body);
    if (refusal.success)
      throw new BoxError(refusal.data.error.code, refusal.data.error.message, {
        status: response.status,
      });
    throw new BoxError(
      "internal",
      `replica ${route.replicaId} answered the relayed ${request.op} with HTTP ${String(response.status)} and no Berth answer`,
    );
  };
}
