/**
 * The seam for fault injection at the HTTP edge (part 2 builds on it): an interceptor sees each
 * request before it is routed and may answer it with a Status error instead, e.g. a 409 or 500
 * on the next N writes to a path. Discovery requests pass through interceptors too.
 */
import type { KubeStatusError } from "./errors.ts";

export interface InterceptedRequest {
  method: string;
  /** The URL path, e.g. `/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes/sb1`. */
  path: string;
  query: URLSearchParams;
}

/** Returns an error to answer with, or undefined to let the request through. */
export type RequestInterceptor = (request: InterceptedRequest) => KubeStatusError | undefined;
