import { BOX_ERROR_CODES, type BoxErrorCode } from "@berth/box-protocol";
import {
  backendAnswerCodes,
  boxServiceErrorCodes,
  leaseErrorCodes,
  restoreRefusalCodes,
  spawnErrorCodes,
} from "@berth/sandbox";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { transferErrorCodes } from "../files/uploadBody.ts";

/** The code of a tRPC error that no domain error explains, as `data.berth.code` carries it. */
export type GenericErrorCode = Lowercase<TRPC_ERROR_CODE_KEY>;

export function genericErrorCode(code: TRPC_ERROR_CODE_KEY): GenericErrorCode {
  return code.toLowerCase() as GenericErrorCode;
}

/**
 * Every `data.berth.code` an answer can carry: the domain's codes (errorTable.ts) and, for any
 * other refusal, its tRPC code in lower case. Clients key their handling on this closed set
 * (the CLI's exit codes and advice must name each one: apps/cli/src/errorAdvice.ts).
 */
export const berthErrorCodes = [
  ...new Set([
    ...boxServiceErrorCodes,
    // boxd's own credential problem is Berth's: answered as box_credentials_refused (errorTable).
    ...BOX_ERROR_CODES.filter(
      (code): code is Exclude<BoxErrorCode, "unauthorized"> => code !== "unauthorized",
    ),
    "box_credentials_refused",
    ...leaseErrorCodes,
    ...spawnErrorCodes,
    ...restoreRefusalCodes,
    ...transferErrorCodes,
    ...backendAnswerCodes,
    "backend_not_configured",
    ...(Object.keys(TRPC_ERROR_CODES_BY_KEY) as TRPC_ERROR_CODE_KEY[]).map(genericErrorCode),
  ] as const),
];

export type BerthErrorCode = (typeof berthErrorCodes)[number];
