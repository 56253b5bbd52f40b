import { decodeUploadQuery, pathRequestSchema } from "@berth/box-protocol";
import { fileTransferRoutes, fileTransferScopeSchema } from "@berth/validators";
import { TRPCError } from "@trpc/server";
import type { z } from "zod";
import { onBox, withGeneration } from "../boxCall.ts";
import { pullStream } from "../http/pullStream.ts";
import type { ApiLogger } from "../logger.ts";
import {
  errorReply,
  requireCaller,
  requireRole,
  type ApiContext,
  type MemberContext,
} from "../trpc.ts";
import { TransferError, UploadBody } from "./uploadBody.ts";

/**
 * Streaming upload and download of one file on a session's box, as plain HTTP routes beside
 * /api/trpc. Each is a box call like any other (an exact direct holder for as long as bytes
 * flow, the routing step, and for an upload a write admission), under the same caller and
 * membership checks as the procedures, answering errors in tRPC's wire shape.
 */
/** A member's context, with the session the transfer runs on. */
type TransferContext = MemberContext & { input: z.infer<typeof fileTransferScopeSchema> };

export function createFileTransfers(options: {
  createContext: (request: { headers: Headers }) => Promise<ApiContext>;
  maxUploadBytes: number;
  logger: ApiLogger;
}): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      const url = new URL(request.url);
      const route = `${request.method} ${url.pathname}`;
      switch (route) {
        case `PUT ${fileTransferRoutes.upload}`:
          return await upload(await member(request, { url, type: "mutation" }), {
            request,
            url,
            maxBytes: options.maxUploadBytes,
          });
        case `GET ${fileTransferRoutes.download}`:
          return await download(await member(request, { url, type: "query" }), url);
        default:
          throw new TRPCError({
            code: "NOT_FOUND",
            message: `No file route ${route}: PUT ${fileTransferRoutes.upload} or GET ${fileTransferRoutes.download}.`,
          });
      }
    } catch (error) {
      const reply = errorReply(error);
      if (reply.internal !== undefined) {
        options.logger.error(
          { err: reply.internal.cause ?? reply.internal, method: request.method, url: request.url },
          "a file transfer failed with an internal error",
        );
      }
      return Response.json(reply.body, { status: reply.status });
    }
  };

  async function member(
    request: Request,
    { url, type }: { url: URL; type: "query" | "mutation" },
  ): Promise<TransferContext> {
    const scope = parse(fileTransferScopeSchema, {
      workspaceId: url.searchParams.get("workspaceId") ?? undefined,
      sessionId: url.searchParams.get("sessionId") ?? undefined,
    });
    const ctx = await options.createContext({ headers: request.headers });
    const authed = { ...ctx, ...requireCaller(ctx, type) };
    const role = await requireRole(authed, scope.workspaceId);
    return { ...authed, workspaceId: scope.workspaceId, role, input: scope };
  }
}

async function upload(
  ctx: TransferContext,
  exchange: { request: Request; url: URL; maxBytes: number },
): Promise<Response> {
  const { request, url, maxBytes } = exchange;
  const target = decodeUploadQuery(url.searchParams);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw TransferError.tooLarge(maxBytes);
  if (request.body === null) throw badRequest("The upload has no body: send the file's bytes.");
  const body = new UploadBody(request.body, maxBytes);
  const written = await onBox(
    ctx,
    { input: { ...ctx.input, ...target }, name: "fs.upload", writes: true },
    async (box, options, handle) => {
      try {
        // Where it landed, as every write says (a swapped session's upload lands on a machine).
        return withGeneration(await box.upload({ ...options, body }), handle);
      } catch (error) {
        // The body's own failure (too large, the client gone) is what happened, not the box's.
        throw body.failure ?? error;
      }
    },
  );
  return Response.json(written);
}

async function download(ctx: TransferContext, url: URL): Promise<Response> {
  // Parsed as the field it is, so a refusal names it ("path: …").
  const { path } = parse(pathRequestSchema, { path: url.searchParams.get("path") ?? undefined });
  let resolve: (response: Response) => void = () => undefined;
  const ready = new Promise<Response>((settle) => (resolve = settle));
  // The holder stays for as long as bytes flow: the call ends when the body is read or dropped.
  const call = onBox(
    ctx,
    { input: { ...ctx.input, path }, name: "fs.download", writes: false, stream: true },
    async (box, request) => {
      const file = await box.download(request);
      let done: () => void = () => undefined;
      const sent = new Promise<void>((settle) => (done = settle));
      async function* bytes() {
        try {
          yield* file.body;
        } finally {
          done();
        }
      }
      resolve(
        new Response(pullStream(bytes()), {
          headers: {
            "content-type": "application/octet-stream",
            "content-length": String(file.size),
            "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(basename(path))}`,
          },
        }),
      );
      await sent;
    },
  );
  return Promise.race([ready, call.then(() => ready)]);
}

function basename(path: string): string {
  return path.split("/").at(-1) ?? path;
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw badRequest(
    `${issue?.path.join(".") || "query"}: ${issue?.message ?? "invalid"}`,
    parsed.error,
  );
}

function badRequest(message: string, cause?: unknown): TRPCError {
  return new TRPCError({ code: "BAD_REQUEST", message, cause });
}
