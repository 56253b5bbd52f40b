import { rm } from "node:fs/promises";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { createBerthClient, type BerthClient } from "../src/index.ts";
import { captureFor, killBox } from "./capture.ts";
import { useServedApi } from "./clientSuite.ts";

// Box services through the typed client: real HTTP, real API, real boxd, real Postgres.

const served = useServedApi();

function client(): BerthClient {
  return createBerthClient({ url: served.current.url, token: served.current.token });
}

interface ErrorAnswer {
  code: string | undefined;
  berth: { code: string; retryable: boolean; epoch?: number } | undefined;
  stack: unknown;
}

async function errorOf(promise: Promise<unknown>): Promise<ErrorAnswer> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TRPCClientError))
    throw new Error(`expected an API error, got ${String(error)}`);
  const data = error.data as
    { code?: string; berth?: ErrorAnswer["berth"]; stack?: unknown } | undefined;
  return { code: data?.code, berth: data?.berth, stack: data?.stack };
}

describe("the typed client", () => {
  it("writes and reads a file on a cold session's new box", async () => {
    const berth = client();
    const me = await berth.me.get.query();
    expect(me.via).toBe("token");
    const { workspaceId } = served.current;
    const sessionId = await served.current.newSession();
    const written = await berth.fs.write.mutate({
      workspaceId,
      sessionId,
      path: "hello.txt",
      content: "hi there",
    });
    // Each write answers with the workspace generation it was admitted at; reads advance none.
    expect(written.generation).toBe(1);
    expect((await berth.fs.read.query({ workspaceId, sessionId, path: "hello.txt" })).content).toBe(
      "hi there",
    );
    const run = await berth.exec.run.mutate({ workspaceId, sessionId, argv: ["cat", "hello.txt"] });
    expect(run).toMatchObject({ exitCode: 0, stdout: "hi there", generation: 2 });
    const made = await berth.fs.mkdir.mutate({ workspaceId, sessionId, path: "docs" });
    expect(made.generation).toBe(3);
  });

  it("20 concurrent reads of a cold session over HTTP succeed on exactly one box", async () => {
    const berth = client();
    const { workspaceId, db } = served.current;
    const sessionId = await served.current.newSession();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => berth.fs.list.query({ workspaceId, sessionId, path: "" })),
    );
    expect(answers).toHaveLength(20);
    const session = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
    const lease = await db.sandboxLease.findFirstOrThrow({
      where: { workspaceId, sandboxGroupId: session.sandboxGroupId },
    });
    const spawned = await db.leaseEvent.count({ where: { leaseId: lease.id, toState: "warm" } });
    expect(spawned).toBe(1);
  });

  it("answers every error with its mapped code and data.berth, never a stack", async () => {
    const berth = client();
    const { workspaceId, db } = served.current;
    const sessionId = await served.current.newSession();
    expect(
      await errorOf(berth.fs.read.query({ workspaceId, sessionId, path: "missing.txt" })),
    ).toEqual({
      code: "NOT_FOUND",
      berth: { code: "not_found", retryable: false },
      stack: undefined,
    });
    expect(
      await errorOf(
        berth.fs.read.query({ workspaceId, sessionId: crypto.randomUUID(), path: "a.txt" }),
      ),
    ).toMatchObject({ code: "NOT_FOUND", berth: { code: "session_not_found", retryable: false } });
    expect(
      await errorOf(berth.fs.read.query({ workspaceId, sessionId, path: "../etc/passwd" })),
    ).toMatchObject({ code: "FORBIDDEN", berth: { code: "outside_workspace", retryable: false } });
    expect(
      await errorOf(berth.fs.read.query({ workspaceId, sessionId, path: "a.txt", length: -1 })),
    ).toMatchObject({ code: "BAD_REQUEST", berth: { code: "bad_request", retryable: false } });

    // A blocked lease: CONFLICT naming its status and epoch.
    const blockedSession = await served.current.newSession();
    const session = await db.session.findUniqueOrThrow({ where: { id: blockedSession } });
    await db.sandboxLease.create({
      data: {
        workspaceId,
        sandboxGroupId: session.sandboxGroupId,
        backend: "local",
        expiresAt: new Date(),
        epoch: 4,
        restoreStatus: "unrecoverable",
      },
    });
    const blocked = await errorOf(
      berth.fs.list.query({ workspaceId, sessionId: blockedSession, path: "" }),
    );
    expect(blocked).toEqual({
      code: "CONFLICT",
      berth: { code: "blocked", retryable: false, epoch: 4 },
      stack: undefined,
    });
  });

  it("a lost box: the first call is instance_lost (retryable), the retry restores the last write", async () => {
    const berth = client();
    const { workspaceId, db, dataDir } = served.current;
    const sessionId = await served.current.newSession();
    await berth.fs.write.mutate({ workspaceId, sessionId, path: "kept.txt", content: "archived" });
    const session = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
    const lease = await db.sandboxLease.findFirstOrThrow({
      where: { workspaceId, sandboxGroupId: session.sandboxGroupId },
    });
    // What the worker's checkpoint does once writes go quiet: capture and publish the workspace.
    await captureFor(served.current, lease.id);
    const instanceId = lease.instanceId ?? "";
    await killBox(instanceId);
    await rm(join(dataDir, "boxes", instanceId), { recursive: true, force: true });

    const lost = await errorOf(berth.fs.read.query({ workspaceId, sessionId, path: "kept.txt" }));
    expect(lost).toMatchObject({
      code: "CONFLICT",
      berth: { code: "instance_lost", retryable: true },
    });
    const again = await berth.fs.read.query({ workspaceId, sessionId, path: "kept.txt" });
    expect(again.content).toBe("archived");
    expect(
      await db.leaseEvent.count({ where: { leaseId: lease.id, transition: { contains: "lost" } } }),
    ).toBe(1);
  });
});
