import { textSchema } from "@berth/validators";
import { z } from "zod";
import { workspacePathSchema } from "./files.ts";

/** Refs and branch names; boxd refuses option-like and malformed ones as `invalid_name`. */
const refSchema = textSchema.min(1).max(1024);
const pathsSchema = z.array(workspacePathSchema).max(10_000);

export const emptyRequestSchema = z.object({});

export const gitStatusEntrySchema = z.object({
  kind: z.enum(["changed", "renamed", "unmerged", "untracked", "ignored"]),
  path: z.string(),
  /** Renames and copies only: where the entry came from. */
  origPath: z.string().optional(),
  /** Porcelain v2 XY: index and work-tree status letters ("." for unchanged). */
  index: z.string(),
  worktree: z.string(),
});
export type GitStatusEntry = z.infer<typeof gitStatusEntrySchema>;

export const gitStatusResponseSchema = z.object({
  branch: z.object({
    /** null before the first commit. */
    oid: z.string().nullable(),
    /** null when HEAD is detached. */
    head: z.string().nullable(),
    upstream: z.string().optional(),
    ahead: z.number().int().optional(),
    behind: z.number().int().optional(),
  }),
  entries: z.array(gitStatusEntrySchema),
});
export type GitStatus = z.infer<typeof gitStatusResponseSchema>;

export const gitDiffRequestSchema = z.object({
  staged: z.boolean().default(false),
  ref: refSchema.optional(),
  paths: pathsSchema.default([]),
});

export const gitTextResponseSchema = z.object({ text: z.string(), truncated: z.boolean() });

export const gitLogRequestSchema = z.object({
  ref: refSchema.optional(),
  paths: pathsSchema.default([]),
  maxCount: z.number().int().min(1).max(1000).default(50),
});

export const gitCommitInfoSchema = z.object({
  oid: z.string(),
  parents: z.array(z.string()),
  authorName: z.string(),
  authorEmail: z.string(),
  authoredAt: z.string(),
  subject: z.string(),
});
export type GitCommitInfo = z.infer<typeof gitCommitInfoSchema>;

export const gitLogResponseSchema = z.object({ commits: z.array(gitCommitInfoSchema) });

export const gitShowRequestSchema = z.object({
  ref: refSchema,
  paths: pathsSchema.default([]),
});

export const gitBranchesResponseSchema = z.object({
  current: z.string().nullable(),
  branches: z.array(z.object({ name: z.string(), oid: z.string(), current: z.boolean() })),
});

export const gitCheckoutRequestSchema = z.object({
  branch: refSchema,
  create: z.boolean().default(false),
});

export const gitAddRequestSchema = z.object({ paths: pathsSchema.min(1) });

// The message and the author go to git as arguments: C strings, so no NUL (textSchema).
export const gitCommitRequestSchema = z.object({
  message: textSchema.min(1).max(100_000),
  author: z.object({ name: textSchema.min(1), email: textSchema.min(1) }).optional(),
  allowEmpty: z.boolean().default(false),
});

export const gitCommitResponseSchema = z.object({ oid: z.string() });
export const gitBranchResponseSchema = z.object({ branch: z.string() });
export const okResponseSchema = z.object({ ok: z.literal(true) });
