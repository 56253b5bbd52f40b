import {
  emptyRequestSchema,
  gitAddRequestSchema,
  gitCheckoutRequestSchema,
  gitCommitRequestSchema,
  gitDiffRequestSchema,
  gitLogRequestSchema,
  gitShowRequestSchema,
} from "@berth/box-protocol";
import type { TRPCRouterRecord } from "@trpc/server";
import { onBox, sessionInput, withGeneration } from "../boxCall.ts";
import type { RouterFixtures } from "../fixtures.ts";
import { memberProcedure } from "../trpc.ts";

// The git repository in the session's /workspace, through boxd's git (no shell).

export const gitRouter = {
  status: memberProcedure
    .input(sessionInput.extend(emptyRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.status", writes: false }, (box) => box.gitStatus({})),
    ),
  add: memberProcedure
    .input(sessionInput.extend(gitAddRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.add", writes: true }, async (box, request, handle) =>
        withGeneration(await box.gitAdd(request), handle),
      ),
    ),
  commit: memberProcedure
    .input(sessionInput.extend(gitCommitRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.commit", writes: true }, async (box, request, handle) =>
        withGeneration(await box.gitCommit(request), handle),
      ),
    ),
  log: memberProcedure
    .input(sessionInput.extend(gitLogRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.log", writes: false }, (box, request) => box.gitLog(request)),
    ),
  show: memberProcedure
    .input(sessionInput.extend(gitShowRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.show", writes: false }, (box, request) =>
        box.gitShow(request),
      ),
    ),
  diff: memberProcedure
    .input(sessionInput.extend(gitDiffRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.diff", writes: false }, (box, request) =>
        box.gitDiff(request),
      ),
    ),
  branches: memberProcedure
    .input(sessionInput.extend(emptyRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.branches", writes: false }, (box) => box.gitBranches({})),
    ),
  checkout: memberProcedure
    .input(sessionInput.extend(gitCheckoutRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "git.checkout", writes: true }, async (box, request, handle) =>
        withGeneration(await box.gitCheckout(request), handle),
      ),
    ),
} satisfies TRPCRouterRecord;

function on(w: { workspaceId: string; boxSessionId: string }) {
  return { workspaceId: w.workspaceId, sessionId: w.boxSessionId };
}

// In definition order, after exec.run made the repository and its README.
export const gitFixtures: RouterFixtures<typeof gitRouter> = {
  status: { access: "member", scope: "tenant", input: (w) => on(w) },
  add: { access: "member", scope: "tenant", input: (w) => ({ ...on(w), paths: ["README.md"] }) },
  commit: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...on(w), message: "first", author: { name: "A", email: "a@example.test" } }),
  },
  log: { access: "member", scope: "tenant", input: (w) => on(w) },
  show: { access: "member", scope: "tenant", input: (w) => ({ ...on(w), ref: "HEAD" }) },
  diff: { access: "member", scope: "tenant", input: (w) => on(w) },
  branches: { access: "member", scope: "tenant", input: (w) => on(w) },
  checkout: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...on(w), branch: "feature", create: true }),
  },
};
