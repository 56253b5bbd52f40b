import { textSchema } from "@berth/validators";
import { z } from "zod";
import { pathLimitProblem } from "../pathLimits.ts";

/**
 * A path inside the workspace, relative to its root, `/`-separated; "" or "." is the root.
 * The schema bounds it (no NUL, PATH_LIMITS), so every edge refuses an overlong or deep path
 * before any work, with the limit named; boxd decides whether it stays inside the workspace
 * (`outside_workspace`), and checks the bounds again itself (`invalid_name`).
 */
export const workspacePathSchema = textSchema.superRefine((path, ctx) => {
  const problem = pathLimitProblem(path);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/** Whole-file reads and writes carry text as UTF-8 or exact bytes as base64. */
export const contentEncodingSchema = z.enum(["utf8", "base64"]);
export type ContentEncoding = z.infer<typeof contentEncodingSchema>;

/**
 * A file's version: the lowercase hex sha256 of its bytes. Content-based, so a rewrite with
 * the same bytes keeps the version and a same-size rewrite within one mtime tick still
 * changes it.
 */
export const fileVersionSchema = z.string().regex(/^[0-9a-f]{64}$/, {
  error: "a version is the file's lowercase hex sha256",
});

export const fileTypeSchema = z.enum(["file", "dir", "symlink", "other"]);
export type FileType = z.infer<typeof fileTypeSchema>;

export const fileInfoSchema = z.object({
  path: z.string(),
  name: z.string(),
  type: fileTypeSchema,
  mode: z.number().int(),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  /** Symlinks only: the link's target as stored, not resolved. */
  target: z.string().optional(),
});
export type FileInfo = z.infer<typeof fileInfoSchema>;

export const pathRequestSchema = z.object({ path: workspacePathSchema });

export const listResponseSchema = z.object({ entries: z.array(fileInfoSchema) });
export const statResponseSchema = z.object({ entry: fileInfoSchema });

export const readRequestSchema = z.object({
  path: workspacePathSchema,
  offset: z.number().int().nonnegative().optional(),
  length: z.number().int().nonnegative().optional(),
  encoding: contentEncodingSchema.default("utf8"),
});
export type ReadRequest = z.input<typeof readRequestSchema>;

export const readResponseSchema = z.object({
  path: z.string(),
  content: z.string(),
  encoding: contentEncodingSchema,
  offset: z.number().int().nonnegative(),
  /** Bytes returned. */
  length: z.number().int().nonnegative(),
  /** The whole file's size. */
  size: z.number().int().nonnegative(),
  eof: z.boolean(),
  /** Whole-file reads only (no offset or length): the version to pass to write. */
  version: fileVersionSchema.optional(),
});
export type ReadResponse = z.infer<typeof readResponseSchema>;

/** `expectedVersion`: omitted writes unconditionally, null requires that no file exists yet. */
const expectedVersionSchema = fileVersionSchema.nullable().optional();

export const writeRequestSchema = z.object({
  path: workspacePathSchema,
  content: z.string(),
  encoding: contentEncodingSchema.default("utf8"),
  expectedVersion: expectedVersionSchema,
  /** Permission bits for the file; an existing file keeps its own when omitted. */
  mode: z.number().int().min(0).max(0o7777).optional(),
  createParents: z.boolean().default(false),
});
export type WriteRequest = z.input<typeof writeRequestSchema>;

export const writeResponseSchema = z.object({
  path: z.string(),
  version: fileVersionSchema,
  size: z.number().int().nonnegative(),
});
export type WriteResponse = z.infer<typeof writeResponseSchema>;

/** Upload options travel in the query string; the body is the file's raw bytes. */
export const uploadQuerySchema = z.object({
  path: workspacePathSchema,
  expectedVersion: expectedVersionSchema,
  mode: z.number().int().min(0).max(0o7777).optional(),
  createParents: z.boolean().default(false),
});
export type UploadOptions = z.input<typeof uploadQuerySchema>;

export const mkdirRequestSchema = z.object({
  path: workspacePathSchema,
  parents: z.boolean().default(false),
});

export const moveRequestSchema = z.object({
  from: workspacePathSchema,
  to: workspacePathSchema,
  overwrite: z.boolean().default(false),
});

export const removeRequestSchema = z.object({
  path: workspacePathSchema,
  recursive: z.boolean().default(false),
});

export const pathResponseSchema = z.object({ path: z.string() });
export const moveResponseSchema = z.object({ from: z.string(), to: z.string() });
