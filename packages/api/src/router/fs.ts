import {
  mkdirRequestSchema,
  moveRequestSchema,
  pathRequestSchema,
  readRequestSchema,
  removeRequestSchema,
  writeRequestSchema,
} from "@berth/box-protocol";
import type { TRPCRouterRecord } from "@trpc/server";
import { onBox, sessionInput, withGeneration } from "../boxCall.ts";
import type { RouterFixtures } from "../fixtures.ts";
import { memberProcedure } from "../trpc.ts";

// Files in the session's /workspace (boxd confines every path to it and refuses symlink escapes).

export const fsRouter = {
  write: memberProcedure
    .input(sessionInput.extend(writeRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "fs.write", writes: true }, async (box, request, handle) =>
        withGeneration(await box.write(request), handle),
      ),
    ),
  read: memberProcedure
    .input(sessionInput.extend(readRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "fs.read", writes: false }, (box, request) => box.read(request)),
    ),
  list: memberProcedure
    .input(sessionInput.extend(pathRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "fs.list", writes: false }, (box, request) => box.list(request)),
    ),
  stat: memberProcedure
    .input(sessionInput.extend(pathRequestSchema.shape))
    .query(({ ctx, input }) =>
      onBox(ctx, { input, name: "fs.stat", writes: false }, (box, request) => box.stat(request)),
    ),
  mkdir: memberProcedure
    .input(sessionInput.extend(mkdirRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "fs.mkdir", writes: true }, async (box, request, handle) =>
        withGeneration(await box.mkdir(request), handle),
      ),
    ),
  move: memberProcedure
    .input(sessionInput.extend(moveRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "fs.move", writes: true }, async (box, request, handle) =>
        withGeneration(await box.move(request), handle),
      ),
    ),
  remove: memberProcedure
    .input(sessionInput.extend(removeRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "fs.remove", writes: true }, async (box, request, handle) =>
        withGeneration(await box.remove(request), handle),
      ),
    ),
} satisfies TRPCRouterRecord;

// In definition order, each valid after the ones before it (the matrix's positive pass runs them so).
export const fsFixtures: RouterFixtures<typeof fsRouter> = {
  write: {
    access: "member",
    scope: "tenant",
    input: (w) => ({
      workspaceId: w.workspaceId,
      sessionId: w.boxSessionId,
      path: "notes.txt",
      content: "hello",
    }),
  },
  read: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.boxSessionId, path: "notes.txt" }),
  },
  list: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.boxSessionId, path: "" }),
  },
  stat: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.boxSessionId, path: "notes.txt" }),
  },
  mkdir: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.boxSessionId, path: "docs" }),
  },
  move: {
    access: "member",
    scope: "tenant",
    input: (w) => ({
      workspaceId: w.workspaceId,
      sessionId: w.boxSessionId,
      from: "notes.txt",
      to: "docs/notes.txt",
    }),
  },
  remove: {
    access: "member",
    scope: "tenant",
    input: (w) => ({
      workspaceId: w.workspaceId,
      sessionId: w.boxSessionId,
      path: "docs/notes.txt",
    }),
  },
};
