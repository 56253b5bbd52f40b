import { z } from "zod";
import { textSchema } from "./text.ts";

// What people type into sign-in, invitation and token forms: checked alike in the browser and
// at the API edge.

/** A person's or a thing's display name (a session's title, a workspace's or a token's name). */
export const displayNameSchema = textSchema
  .trim()
  .min(1, { error: "must not be empty" })
  .max(100, { error: "must be at most 100 characters" });

/** Its address pattern has no room for NUL or any other control character. */
export const emailSchema = z
  .email({ error: "must be an email address" })
  .max(254, { error: "must be at most 254 characters" });

/** The sign-in service enforces the same bounds. */
export const passwordSchema = z
  .string()
  .min(8, { error: "must be at least 8 characters" })
  .max(256, { error: "must be at most 256 characters" });

/**
 * What an account is created with (better-auth's sign-up body), and nothing more: no `image`, no
 * field Berth does not read. Unknown keys are refused by name rather than dropped.
 */
export const signUpSchema = z.strictObject({
  name: displayNameSchema,
  email: emailSchema,
  password: passwordSchema,
  rememberMe: z.boolean({ error: "must be true or false" }).optional(),
});

/** How long a new API token lives: 1 to 365 days, or null for until revoked. */
export const tokenLifetimeDaysSchema = z
  .number({ error: "must be a number of days" })
  .int({ error: "must be a whole number of days" })
  .min(1, { error: "must be at least 1 day" })
  .max(365, { error: "must be at most 365 days" })
  .nullable();
