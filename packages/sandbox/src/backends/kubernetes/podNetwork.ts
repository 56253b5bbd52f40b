/**
 * Whether a box that never served was out of Berth's network reach (spec/kubernetes.md §6):
 * Berth dials boxd at its pod's IP, which only the cluster's pod network routes. From outside it
 * (a laptop holding a KUBECONFIG for a remote cluster) the Sandbox gets Ready — the kubelet's
 * own probe reaches boxd — while every connection Berth opens is refused, unroutable or never
 * answered. Port-forwarding is not built, so that box start fails with its own code.
 */
import { BoxError } from "@berth/box-protocol";
import { BackendError } from "../../spawner/backend.ts";

/** Socket errors that mean no connection was made at all (not a connection boxd then broke). */
const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * The `unreachable_pod_network` error for a readiness wait that ended `unavailable` because its
 * last attempt could not connect to the pod's address — reach had already found the Sandbox
 * Ready and its pod Running with an IP, so the probe was the only thing left — or undefined
 * when the wait ended for any other reason (the box starting, an API failure, boxd answering
 * with an error).
 */
export function unreachablePodNetwork(
  instanceId: string,
  timedOut: BackendError,
): BackendError | undefined {
  const last: unknown = timedOut.cause;
  if (!(last instanceof BoxError) || !isConnectFailure(last)) return undefined;
  return new BackendError({
    code: "unreachable_pod_network",
    message:
      `box ${instanceId} is Ready in the cluster, but Berth cannot connect to boxd at its pod's IP (${last.message}). ` +
      "Pod IPs are routed only inside the cluster: Berth must run inside the cluster to use the kubernetes backend " +
      "(port-forwarding is not built).",
    instanceId,
    cause: timedOut,
  });
}

/** Nothing answered the probe: no connection was made, or none answered before the deadline. */
export function isConnectFailure(error: BoxError): boolean {
  if (error.code === "timeout") return true;
  if (error.code !== "unavailable") return false;
  // fetch's TypeError carries the socket's error as its cause (an AggregateError when several
  // addresses were tried): look a few causes deep for the system code.
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && CONNECT_FAILURES.has(code)) return true;
    if (cause instanceof AggregateError && cause.errors.some(hasConnectCode)) return true;
    cause = cause.cause;
  }
  return false;
}

function hasConnectCode(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && CONNECT_FAILURES.has(code);
}
