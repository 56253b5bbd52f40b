import { displayNameSchema } from "@berth/validators";
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
