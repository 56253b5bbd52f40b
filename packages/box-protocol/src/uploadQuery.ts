import { BoxError } from "./boxError.ts";
import { uploadQuerySchema, type UploadOptions } from "./schemas/files.ts";
import type { z } from "zod";

/**
 * Upload options as query parameters, encoded and decoded here so client and server agree:
 * `expectedVersion=null` means "must not exist yet", `mode` is decimal, `createParents=1`.
 */
export function encodeUploadQuery(options: UploadOptions): Record<string, string | undefined> {
  return {
    path: options.path,
    expectedVersion:
      options.expectedVersion === undefined ? undefined : (options.expectedVersion ?? "null"),
    mode: options.mode === undefined ? undefined : String(options.mode),
    createParents: options.createParents === true ? "1" : undefined,
  };
}

export function decodeUploadQuery(params: URLSearchParams): z.output<typeof uploadQuerySchema> {
  const expected = params.get("expectedVersion");
  const mode = params.get("mode");
  const parsed = uploadQuerySchema.safeParse({
    path: params.get("path") ?? undefined,
    expectedVersion: expected === null ? undefined : expected === "null" ? null : expected,
    mode: mode === null ? undefined : Number(mode),
    createParents: params.get("createParents") === "1",
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BoxError(
      "invalid_request",
      `upload: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid query"}`,
    );
  }
  return parsed.data;
}
