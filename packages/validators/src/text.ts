import { z } from "zod";

/**
 * The words every NUL refusal uses, so a client recognizes it whichever field it is in (the
 * field itself is the path).
 */
export const NUL_REFUSAL = "must not contain a NUL byte (U+0000)";

/** Whether `value` has no NUL (U+0000) in it. */
export function isNulFree(value: string): boolean {
  return !value.includes("\0");
}

/**
 * A string that reaches Postgres or a process: anything but NUL. NUL is the one character
 * neither takes — Postgres `text` refuses it (the insert fails: a 500), and a process's argv
 * and environment are C strings that end at it (spawn throws) — so it is refused at the input,
 * as a 400 naming the field, before anything is written, woken or run. Build every such field
 * on this (`textSchema.min(1).max(100)`, …) rather than on `z.string()`.
 */
export const textSchema = z.string().refine(isNulFree, { error: NUL_REFUSAL });
