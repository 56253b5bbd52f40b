import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import {
  BoxError,
  CAPTURE_ESTIMATE_HEADER,
  decodeUploadQuery,
  type HydrateResult,
} from "@berth/box-protocol";
import { atomicWrite } from "../fs/atomicWrite.ts";
import { openRegularFile } from "../fs/fileOps.ts";
import { joinPath, parseWorkspacePath } from "../fs/workspacePath.ts";
import { fsError } from "../fs/fsErrors.ts";
import { captureWorkspace } from "../workspace/capture.ts";
import { estimateCaptureBytes } from "../workspace/captureEstimate.ts";
import { hydrateWorkspace } from "../workspace/hydrate.ts";
import type { BoxdContext } from "./context.ts";
import { sendJson } from "./respond.ts";

/** PUT raw bytes: streamed into the temp file of an atomic write, never held in memory. */
export async function handleUpload(
  context: BoxdContext,
  exchange: {
    readonly request: IncomingMessage;
    readonly response: ServerResponse;
    readonly url: URL;
  },
): Promise<void> {
  const { request, response, url } = exchange;
  const options = decodeUploadQuery(url.searchParams);
  const declared = Number(request.headers["content-length"] ?? 0);
  await context.disk.admit(Number.isSafeInteger(declared) ? declared : 0);
  const result = await atomicWrite(context.root, {
    ...options,
    content: context.disk.metered(request as AsyncIterable<Buffer>),
  });
  sendJson(response, 200, result);
}

/** GET the file's bytes, exactly the size it had when opened. */
export async function handleDownload(
  context: BoxdContext,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const components = parseWorkspacePath(url.searchParams.get("path") ?? "");
  const path = joinPath(components);
  const resolved = await context.root.resolve(components, { followLast: true, shownPath: path });
  try {
    if (resolved.name === undefined)
      throw new BoxError("wrong_type", `${path || "the root"}: is a folder`);
    const file = await openRegularFile(context.root, {
      directory: resolved.directory,
      name: resolved.name,
      path,
    });
    const { size } = await file.stat();
    response.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": size,
    });
    if (size === 0) {
      await file.close();
      response.end();
      return;
    }
    await pipeline(file.createReadStream({ start: 0, end: size - 1 }), response);
  } catch (error) {
    throw fsError(error, path);
  } finally {
    await resolved.directory.close();
  }
}

export async function handleCapture(context: BoxdContext, response: ServerResponse): Promise<void> {
  // A header, not writeHead: until the first tar bytes go out, a failure can still be a
  // proper error reply; after that it can only cut the connection (the client sees a
  // truncated archive, which its verification refuses).
  response.setHeader("content-type", "application/x-tar");
  response.setHeader(CAPTURE_ESTIMATE_HEADER, String(await estimateCaptureBytes(context.root)));
  const result = await captureWorkspace(context.root, response);
  context.logger.info(result, "workspace captured");
}

/** PUT a tar, plain or (`content-encoding: gzip`) compressed, into the empty workspace. */
export async function handleHydrate(
  context: BoxdContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const encoding = request.headers["content-encoding"] ?? "identity";
  if (encoding !== "identity" && encoding !== "gzip") {
    // Read and drop the body, so the client gets this error as the reply.
    request.resume();
    throw new BoxError(
      "invalid_archive",
      `a hydrate body is a tar, plain or gzip; not ${encoding}`,
    );
  }
  await context.disk.admit(0);
  const reservation = context.disk.reserve();
  let result: HydrateResult;
  try {
    result = await hydrateWorkspace(context.root, request, {
      gzip: encoding === "gzip",
      reserve: (bytes) => reservation.add(bytes),
    });
    reservation.commit();
  } finally {
    reservation.release();
  }
  context.logger.info(result, "workspace hydrated");
  sendJson(response, 200, result);
}
