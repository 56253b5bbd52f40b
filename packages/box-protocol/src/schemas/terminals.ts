import { z } from "zod";
import { environmentSchema } from "./exec.ts";
import { workspacePathSchema } from "./files.ts";

const terminalIdSchema = z.string().min(1).max(100);
const colsSchema = z.number().int().min(1).max(1000);
const rowsSchema = z.number().int().min(1).max(1000);

export const terminalInfoSchema = z.object({
  id: z.string(),
  pid: z.number().int(),
  cols: z.number().int(),
  rows: z.number().int(),
  cwd: z.string(),
  createdAt: z.string(),
  exited: z.boolean(),
  exitCode: z.number().int().nullable(),
  signal: z.number().int().nullable(),
  /** The sequence number of the latest output chunk (0 before any output). */
  lastSeq: z.number().int().nonnegative(),
});
export type TerminalInfo = z.infer<typeof terminalInfoSchema>;

export const openTerminalRequestSchema = z.object({
  cwd: workspacePathSchema.default(""),
  cols: colsSchema.default(80),
  rows: rowsSchema.default(24),
  env: environmentSchema.default({}),
});
export type OpenTerminalRequest = z.input<typeof openTerminalRequestSchema>;

export const terminalIdRequestSchema = z.object({ id: terminalIdSchema });
export const terminalInputRequestSchema = z.object({ id: terminalIdSchema, data: z.string() });
export const terminalResizeRequestSchema = z.object({
  id: terminalIdSchema,
  cols: colsSchema,
  rows: rowsSchema,
});
/** The longest a read may wait for an event (see terminalReadRequestSchema's `waitMs`). */
export const MAX_TERMINAL_READ_WAIT_MS = 25_000;

/**
 * `since`: the last sequence number the caller has; it gets everything after it. `waitMs`: a
 * long-poll — when nothing follows `since` and the terminal has not exited, the reply waits up
 * to that long for an event (output, gap, exit; or the terminal closing) and answers what there
 * is then, possibly nothing. 0 answers at once.
 */
export const terminalReadRequestSchema = z.object({
  id: terminalIdSchema,
  since: z.number().int().nonnegative().default(0),
  waitMs: z.number().int().min(0).max(MAX_TERMINAL_READ_WAIT_MS).default(0),
});

export const listTerminalsResponseSchema = z.object({ terminals: z.array(terminalInfoSchema) });

/**
 * What a terminal sends, over the attach WebSocket or in a read reply. Output chunks carry
 * consecutive sequence numbers starting at 1, and the terminal's size when they were written:
 * a screen replaying them draws each at that size, because a shell's line editing (its cursor
 * moves over wrapped lines) only lands right at the width it was computed for. `gap` says the
 * replay buffer no longer holds chunks fromSeq..toSeq (inclusive): they are lost to this
 * client, everything after follows.
 */
export const terminalEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("output"),
    seq: z.number().int().positive(),
    data: z.string(),
    cols: colsSchema,
    rows: rowsSchema,
  }),
  z.object({
    type: z.literal("gap"),
    fromSeq: z.number().int().positive(),
    toSeq: z.number().int().positive(),
  }),
  z.object({
    type: z.literal("exit"),
    exitCode: z.number().int().nullable(),
    signal: z.number().int().nullable(),
  }),
]);
export type TerminalEvent = z.infer<typeof terminalEventSchema>;

export const terminalReadResponseSchema = z.object({ events: z.array(terminalEventSchema) });

/** What a client sends over the attach WebSocket. */
export const terminalClientMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("input"), data: z.string() }),
  z.object({ type: z.literal("resize"), cols: colsSchema, rows: rowsSchema }),
]);
export type TerminalClientMessage = z.infer<typeof terminalClientMessageSchema>;
