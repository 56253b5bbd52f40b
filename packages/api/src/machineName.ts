import { MACHINE_NAME_MAX } from "@berth/sandbox";
import { textSchema } from "@berth/validators";

/**
 * A machine's name: what `berth machines` and the dashboard show, unique in its workspace. No
 * control characters: it is printed in terminals' tables, and a name is no place for escapes.
 */
export const machineNameSchema = textSchema
  .trim()
  .min(1, { error: "must not be empty" })
  .max(MACHINE_NAME_MAX, { error: `must be at most ${String(MACHINE_NAME_MAX)} characters` })
  .regex(/^[^\p{Cc}]+$/u, { error: "must not hold control characters" });
