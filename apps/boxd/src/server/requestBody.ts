import type { IncomingMessage } from "node:http";
import { BoxError } from "@berth/box-protocol";
import { MAX_JSON_BODY_BYTES } from "../limits.ts";

/** The JSON request body, refused past the limit without reading the rest into memory. */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > MAX_JSON_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.byteLength;
    if (size > MAX_JSON_BODY_BYTES) throw tooLarge();
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new BoxError("invalid_request", "the request body is not JSON");
  }
}

function tooLarge(): BoxError {
  return new BoxError(
    "too_large",
    `a JSON request is at most ${MAX_JSON_BODY_BYTES / 1024 / 1024} MiB: send large files with the upload stream`,
  );
}
