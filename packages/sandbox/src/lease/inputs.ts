import { z } from "zod";
import { LeaseError } from "./errors.ts";
import { holderKinds } from "./states.ts";

const SECOND = 1_000;
const DAY = 24 * 60 * 60 * SECOND;

export const idSchema = z.uuid({ error: "must be a UUID" });
/** A holder id: `direct:<requestId>`, `turn-attempt:<id>`, a viewer connection id, … */
export const holderIdSchema = z
  .string()
  .trim()
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });
export const holderKindSchema = z.enum(holderKinds, {
  error: `must be one of ${holderKinds.join(", ")}`,
});
/** Every TTL and grace Berth accepts: between 1 second and 24 hours. */
export const ttlMsSchema = z
  .number()
  .int({ error: "must be a whole number of milliseconds" })
  .min(SECOND, { error: "must be at least 1 s (1000 ms)" })
  .max(DAY, { error: "must be at most 24 h" });
export const epochSchema = z.number().int().min(0, { error: "must be a non-negative integer" });
/** An opaque fingerprint of what the box runs (image, resources); null means "any". */
export const profileSchema = z.string().min(1).max(512).nullable();

/** Parses `value` or throws `invalid_input` naming every problem, before anything is written. */
export function parseInput<TSchema extends z.ZodType>(
  schema: TSchema,
  value: unknown,
): z.infer<TSchema> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "input"}: ${issue.message}`,
  );
  throw new LeaseError({
    code: "invalid_input",
    message: `Invalid lease input: ${problems.join("; ")}`,
    details: { problems },
  });
}

/** A write's operation name, as admissions record it. */
export const operationSchema = z.string().trim().min(1).max(128);
