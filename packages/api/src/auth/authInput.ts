import { displayNameSchema, isNulFree, NUL_REFUSAL } from "@berth/validators";
import { APIError } from "better-auth/api";
import { z } from "zod";

// better-auth's own checks bound neither `name` nor `email` and take any `image` string, so the
// bodies of its endpoints that write a person's row are parsed with Berth's schemas first.

/** The one other way to write a name (better-auth's /update-user): the same bound, nothing else. */
export const profileUpdateSchema = z.strictObject({ name: displayNameSchema.optional() });

/**
 * `body` parsed by `schema` (so a name arrives trimmed), or a 400 naming every offending field,
 * thrown before anything is read or written.
 */
export function parseAuthBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ field: key, message: "is not accepted" }))
      : [{ field: issue.path.join(".") || "body", message: issue.message }],
  );
  throw new APIError("BAD_REQUEST", {
    code: "INVALID_INPUT",
    message: problems.map((problem) => `"${problem.field}": ${problem.message}`).join("; "),
    fields: problems.map((problem) => problem.field),
  });
}

/** Auth bodies are flat (a few nested options at most): nothing deeper is looked at. */
const MAX_FIELD_DEPTH = 4;

/** The paths of the strings (and keys) under `value` that hold NUL. */
function nulFields(value: unknown, path: string, depth: number): string[] {
  if (typeof value === "string") return isNulFree(value) ? [] : [path || "body"];
  if (typeof value !== "object" || value === null || depth >= MAX_FIELD_DEPTH) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const at = path === "" ? key : `${path}.${key}`;
    return [...(isNulFree(key) ? [] : [at]), ...nulFields(item, at, depth + 1)];
  });
}

/**
 * A 400 naming every field of an auth request (its body and query) that holds NUL, thrown
 * before any endpoint reads it. better-auth's own checks let NUL through to Postgres (a session
 * or reset token looked up: a 500) and to headers (a sign-in's callbackURL, after the session
 * row was written: a 500), so the rule is one for every endpoint rather than one per field.
 */
export function refuseNulFields(request: { body?: unknown; query?: unknown }): void {
  const fields = [
    ...nulFields(request.body, "", 0),
    ...nulFields(request.query, "", 0).map((field) => `query.${field}`),
  ];
  if (fields.length === 0) return;
  throw new APIError("BAD_REQUEST", {
    code: "INVALID_INPUT",
    message: fields.map((field) => `"${field}": ${NUL_REFUSAL}`).join("; "),
    fields,
  });
}
