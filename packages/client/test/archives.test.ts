import { rm } from "node:fs/promises";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { createBerthClient } from "../src/index.ts";
import { killBox } from "./capture.ts";
import { useServedApi } from "./clientSuite.ts";

// An on-demand capture through the typed client, and the restore after a lost box, each
// followed live on events.session: progress comes as `transfer` items, read from Postgres.

const served = useServedApi();

interface Transfer {
  readonly kind: "transfer";
  readonly operation: string;
  readonly phase: string;
  readonly bytesDone: number;
  readonly bytesTotal: number | null;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("archives on demand, with live progress", () => {
  it("captures now (archiveComplete), and a lost box's restore reports its phases", async () => {
    const berth = createBerthClient({ url: served.current.url, token: served.current.token });
    const { workspaceId, db, dataDir } = served.current;
    const sessionId = await served.current.newSession();
    const scope = { workspaceId, sessionId };
    await berth.fs.write.mutate({ ...scope, path: "data.txt", content: "x".repeat(200_000) });

    const transfers: Transfer[] = [];
    const generations: { archiveGeneration: number | null }[] = [];
    const follower = berth.events.session.subscribe(scope, {
      onData: (item) => {
        if (!("kind" in item)) return;
        if (item.kind === "transfer") transfers.push(item);
        if (item.kind === "generations") generations.push(item);
      },
    });
    await until(() => generations.length > 0, "the event stream");

    const captured = await berth.archives.capture.mutate(scope);
    expect(captured).toMatchObject({ generation: 1, archiveComplete: true });
    expect(captured.revision).toMatch(/^[0-9a-f]{64}$/);
    await until(() => generations.at(-1)?.archiveGeneration === 1, "the published generation");
    await until(() => transfers.some((t) => t.operation === "capture"), "capture progress");
    const capture = transfers.filter((t) => t.operation === "capture").at(-1);
    expect(capture).toMatchObject({ phase: "capturing" });
    expect(capture?.bytesDone).toBeGreaterThan(200_000);
    const listed = await berth.archives.list.query(scope);
    expect(listed.archives[0]).toMatchObject({ revision: captured.revision, generation: 1 });

    // The box is lost; the retry restores the captured revision, its progress shown live.
    const session = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
    const lease = await db.sandboxLease.findFirstOrThrow({
      where: { workspaceId, sandboxGroupId: session.sandboxGroupId },
    });
    await killBox(lease.instanceId ?? "");
    await rm(join(dataDir, "boxes", lease.instanceId ?? ""), { recursive: true, force: true });
    const lost = await berth.fs.read.query({ ...scope, path: "data.txt" }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(TRPCClientError);
    const restored = await berth.fs.read.query({ ...scope, path: "data.txt" });
    expect(restored.content).toHaveLength(200_000);
    await until(
      () => transfers.some((t) => t.operation === "restore" && t.phase === "hydrating"),
      "restore progress",
    );
    follower.unsubscribe();
    const phases = transfers.filter((t) => t.operation === "restore").map((t) => t.phase);
    expect(phases).toContain("hydrating");
    const hydrated = transfers.filter((t) => t.phase === "hydrating").at(-1);
    expect(hydrated?.bytesDone).toBe(hydrated?.bytesTotal);
  });

  it("a capture of a session in another workspace is NOT_FOUND", async () => {
    const berth = createBerthClient({ url: served.current.url, token: served.current.token });
    const outside = await berth.archives.capture
      .mutate({ workspaceId: crypto.randomUUID(), sessionId: await served.current.newSession() })
      .catch((e: unknown) => e);
    expect((outside as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND" });
  });
});
