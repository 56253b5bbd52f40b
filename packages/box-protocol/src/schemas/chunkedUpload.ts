import { z } from "zod";
import { uploadQuerySchema, writeResponseSchema } from "./files.ts";

// An upload in JSON pieces, for a box reached by a channel that carries JSON and no streams (an
// enrolled machine's agent): begin with the upload's options, send the bytes chunk by chunk at
// exact offsets, then commit (the same atomic rename and answer as the streaming upload) or
// abort. Between begin and commit the bytes sit in a temp file beside the target.

/** Names one upload in flight on its box; it means nothing anywhere else. */
export const uploadIdSchema = z.string().regex(/^[0-9a-f]{32}$/, {
  error: "an upload id is what uploadBegin answered",
});

/** The streaming upload's options, as they are. */
export const uploadBeginRequestSchema = uploadQuerySchema;
export const uploadBeginResponseSchema = z.object({ uploadId: uploadIdSchema });

export const uploadChunkRequestSchema = z.object({
  uploadId: uploadIdSchema,
  /**
   * Where the chunk goes: exactly the bytes received so far, else it is refused. A chunk sent
   * again (its answer lost) is refused, never written twice.
   */
  offset: z.number().int().nonnegative(),
  /** The chunk's bytes, base64. */
  content: z.base64(),
});
/** `received`: the upload's bytes so far, this chunk's included (the next chunk's offset). */
export const uploadChunkResponseSchema = z.object({
  received: z.number().int().nonnegative(),
});

export const uploadIdRequestSchema = z.object({ uploadId: uploadIdSchema });

/** A commit answers what the streaming upload answers. */
export const uploadCommitResponseSchema = writeResponseSchema;
export const uploadAbortResponseSchema = z.object({ ok: z.literal(true) });
