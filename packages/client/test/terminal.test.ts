import { describe, expect, it } from "vitest";
import { createBerthClient } from "../src/index.ts";
import { useServedApi } from "./clientSuite.ts";

// A terminal through the typed client: output over server-sent events, resumed by event id.

const served = useServedApi();

interface Received {
  readonly id: string;
  readonly data: { type: string; seq?: number; data?: string };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const text = (events: readonly Received[]) => events.map((e) => e.data.data ?? "").join("");

describe("terminals", () => {
  it("stream output over SSE; a reconnect with the last id receives exactly what it missed", async () => {
    const berth = createBerthClient({ url: served.current.url, token: served.current.token });
    const { workspaceId, db } = served.current;
    const sessionId = await served.current.newSession();
    // A dashboard follows the warm session: a terminal's opening and closing arrive as they
    // happen (the first generations item says the subscriber is caught up).
    await berth.exec.run.mutate({ workspaceId, sessionId, argv: ["true"] });
    const lifecycle: { transition: string; actor: string }[] = [];
    let following = false;
    const follower = berth.events.session.subscribe(
      { workspaceId, sessionId },
      {
        onData: (item) => {
          // Lease events are tracked ({ id, data }); a generations snapshot comes as it is.
          if ("kind" in item) following = true;
          else if (item.data.transition.startsWith("process_"))
            lifecycle.push({ transition: item.data.transition, actor: item.data.actor });
        },
      },
    );
    await until(() => following, "the session's event stream");
    const terminal = await berth.terminal.open.mutate({ workspaceId, sessionId });
    const scope = { workspaceId, sessionId, id: terminal.id };
    const holderId = `terminal:${terminal.id}`;
    await until(() => lifecycle.length === 1, "the terminal's opening event");
    expect(lifecycle).toEqual([{ transition: "process_opened", actor: holderId }]);

    const first: Received[] = [];
    const subscription = berth.terminal.output.subscribe(scope, {
      onData: (event) => first.push(event),
    });
    await berth.terminal.write.mutate({ ...scope, data: "echo one-$((40+2))\n" });
    await until(() => text(first).includes("one-42"), "the first output");
    subscription.unsubscribe();
    const lastId = first.at(-1)?.id ?? "";
    expect(Number(lastId)).toBe(first.at(-1)?.data.seq);

    await berth.terminal.write.mutate({ ...scope, data: "echo two-$((50+5))\n" });
    const resumed: Received[] = [];
    const again = berth.terminal.output.subscribe(
      { ...scope, lastEventId: lastId },
      { onData: (event) => resumed.push(event) },
    );
    await until(() => text(resumed).includes("two-55"), "the missed output");
    again.unsubscribe();
    expect(resumed[0]?.data.seq).toBe(Number(lastId) + 1);
    expect(text(resumed)).not.toContain("one-42");
    const seqs = resumed.flatMap((e) => (e.data.seq === undefined ? [] : [e.data.seq]));
    expect(seqs).toEqual(seqs.map((_, i) => Number(lastId) + 1 + i));

    // An open terminal holds the box; closing it lets the box go idle.
    const session = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
    const lease = () =>
      db.sandboxLease.findFirstOrThrow({
        where: { workspaceId, sandboxGroupId: session.sandboxGroupId },
        include: { holders: true },
      });
    // The stream's own holder goes once the server sees the client leave.
    await until(
      async () => (await lease()).holders.every((h) => h.kind !== "direct"),
      "the stream's holder to go",
    );
    expect((await lease()).holders.map((h) => [h.kind, h.holderId])).toEqual([
      ["process", holderId],
    ]);
    await berth.terminal.close.mutate(scope);
    // The terminal's hold is gone when close answers; the close call's own holder is released
    // just behind its answer.
    expect((await lease()).holders.some((h) => h.kind === "process")).toBe(false);
    await until(async () => (await lease()).holderCount === 0, "the close call's holder to go");
    expect(await lease()).toMatchObject({ liveness: "draining", holderCount: 0 });
    await until(() => lifecycle.length === 2, "the terminal's closing event");
    follower.unsubscribe();
    expect(lifecycle.at(-1)).toEqual({ transition: "process_closed", actor: holderId });
  });
});
