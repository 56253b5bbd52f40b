import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { boxErrorFromResponse } from "../errors.ts";
import { callerHeaders, endpointUrl, transportError, type ClientContext } from "./http.ts";

export interface StreamExchange {
  readonly method: "GET" | "PUT";
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as it is read: the socket's backpressure paces the source. */
  readonly body?: Uint8Array | string | AsyncIterable<Uint8Array>;
}

/**
 * A streamed exchange over node:http rather than fetch: the reply is a Readable that stops
 * reading the socket while its consumer is busy, so a large capture or download never piles up
 * in memory ahead of a slow sink (fetch's body stream reads ahead). Failures are BoxErrors.
 */
export async function exchangeStream(
  context: ClientContext,
  options: StreamExchange,
): Promise<IncomingMessage> {
  const url = endpointUrl(context.baseUrl, options.path, options.query);
  const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
    method: options.method,
    ...(context.socketPath === undefined ? {} : { socketPath: context.socketPath }),
    headers: { ...options.headers, ...callerHeaders(context) },
    signal: context.timeoutMs === undefined ? undefined : AbortSignal.timeout(context.timeoutMs),
  });
  const replied = new Promise<IncomingMessage>((resolve, reject) => {
    request.once("response", resolve);
    request.once("error", reject);
  });
  // The reply may come (an early refusal) before the body is all sent; both are awaited.
  const sending = sendBody(request, options.body);
  sending.catch(() => undefined);
  let response: IncomingMessage;
  try {
    response = await replied;
  } catch (error) {
    throw transportError(error);
  }
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    throw boxErrorFromResponse(status, await readAll(response));
  }
  try {
    await sending;
  } catch (error) {
    response.destroy();
    throw transportError(error);
  }
  return response;
}

async function sendBody(
  request: ReturnType<typeof httpRequest>,
  body: StreamExchange["body"],
): Promise<void> {
  if (body === undefined) {
    request.end();
    return;
  }
  if (typeof body === "string" || body instanceof Uint8Array) {
    request.end(body);
    return;
  }
  await pipeline(Readable.from(body, { objectMode: false }), request);
}

/** A whole (small) reply body as text. */
export async function readAll(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response) chunks.push(chunk as Buffer);
  } catch (error) {
    throw transportError(error);
  }
  return Buffer.concat(chunks).toString("utf8");
}
