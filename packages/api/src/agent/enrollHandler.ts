/**
 * POST /agent/v1/enroll (AGENT_ROUTES.enroll): a machine's agent exchanges a one-time code for
 * its machine credential. No cookie, no token and no Origin: the code is the credential, so the
 * route stands outside tRPC and the dashboard's checks. Answers are the agent protocol's JSON
 * (`{ error: { code, message } }`, codes of the box protocol), which boxd reads without tRPC.
 */
import {
  AGENT_ROUTES,
  enrollRequestSchema,
  type BoxErrorCode,
  type EnrollResponse,
} from "@berth/box-protocol";
import type { DbClient } from "@berth/db";
import { EnrollmentRefusedError, redeemEnrollmentCode, refusalWords } from "@berth/sandbox";
import type { Clock } from "@berth/sandbox/clock";
import { z } from "zod";
import type { ApiLogger } from "../logger.ts";
import { machineNameSchema } from "../machineName.ts";

/** An enroll request is a few hundred bytes; anything past this is not one. */
const MAX_BODY_BYTES = 16 * 1024;

/** The request as the handler takes it: the protocol's, with the name held to machine names'. */
const requestSchema = enrollRequestSchema.extend({ name: machineNameSchema.optional() });

export function createAgentEnrollHandler(options: {
  db: DbClient;
  clock: Clock;
  logger: ApiLogger;
}): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== "POST")
      return errorResponse(405, "invalid_request", `POST ${AGENT_ROUTES.enroll} enrolls.`);
    const body = await readJson(request);
    if (!body.ok) return errorResponse(400, "invalid_request", body.message);
    const parsed = requestSchema.safeParse(body.value);
    if (!parsed.success)
      return errorResponse(
        400,
        "invalid_request",
        `bad enroll request: ${z.prettifyError(parsed.error)}`,
      );
    const { code, name, ...facts } = parsed.data;
    try {
      const enrolled = await redeemEnrollmentCode(options.db, {
        code,
        ...(name === undefined ? {} : { name }),
        facts,
        now: await options.clock.now(),
      });
      const answer: EnrollResponse = enrolled;
      return Response.json(answer, { status: 201, headers: { "cache-control": "no-store" } });
    } catch (error) {
      if (error instanceof EnrollmentRefusedError)
        return errorResponse(
          401,
          "unauthorized",
          `the enrollment code is ${refusalWords(error.reason)}: ask an admin for a new one (berth machines enroll)`,
        );
      options.logger.error(
        { err: error, url: request.url },
        "an enrollment failed with an internal error",
      );
      return errorResponse(500, "internal", "Internal error; it was logged.");
    }
  };
}

function errorResponse(status: number, code: BoxErrorCode, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** The body as JSON, read no further than MAX_BODY_BYTES. */
async function readJson(
  request: Request,
): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = request.body?.getReader();
  if (reader === undefined) return { ok: false, message: "the body must be a JSON enroll request" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return { ok: false, message: `the body is over ${String(MAX_BODY_BYTES)} bytes` };
    }
    chunks.push(value);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return { ok: false, message: "the body is not JSON" };
  }
}
