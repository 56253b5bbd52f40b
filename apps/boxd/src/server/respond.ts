import type { ServerResponse } from "node:http";
import { BoxError, httpStatusOf, type ErrorBody } from "@berth/box-protocol";
import type { Logger } from "pino";

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  response.end(text);
}

/** Any thrown value as a typed error body; unexpected ones are logged and reported as internal. */
export function toBoxError(error: unknown, logger: Logger): BoxError {
  if (error instanceof BoxError) return error;
  logger.error({ err: error }, "unexpected error");
  return new BoxError("internal", "boxd failed unexpectedly; see its log");
}

export function errorBody(error: BoxError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}

export function sendError(response: ServerResponse, error: unknown, logger: Logger): void {
  const boxError = toBoxError(error, logger);
  if (response.headersSent) {
    // Mid-stream: the only way left to say "failed" is to cut the connection.
    response.destroy(boxError);
    return;
  }
  sendJson(response, httpStatusOf(boxError.code), errorBody(boxError));
}
