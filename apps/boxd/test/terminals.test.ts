import type { BoxClient, TerminalEvent } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startBoxd, type BoxdProcess } from "./boxdProcess.ts";

let boxd: BoxdProcess;
beforeAll(async () => {
  boxd = await startBoxd();
});
afterAll(async () => {
  await boxd.stop();
});

type Output = Extract<TerminalEvent, { type: "output" }>;

/** Collects events from an attach and waits for text in the output. */
function collector() {
  const events: TerminalEvent[] = [];
  const outputs = () => events.filter((event): event is Output => event.type === "output");
  return {
    events,
    outputs,
    text: () =>
      outputs()
        .map((event) => event.data)
        .join(""),
    onEvent: (event: TerminalEvent) => events.push(event),
  };
}

async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Everything the terminal still holds after `since`, read over HTTP. */
async function readAll(client: BoxClient, id: string, since = 0): Promise<Output[]> {
  const { events } = await client.readTerminal({ id, since });
  return events.filter((event): event is Output => event.type === "output");
}

function expectConsecutive(outputs: readonly Output[], first: number): void {
  expect(outputs.map((event) => event.seq)).toEqual(outputs.map((_event, index) => first + index));
}

describe("terminals", () => {
  it("runs a command typed into bash and streams its output", async () => {
    const terminal = await boxd.client.openTerminal({ cols: 100, rows: 30 });
    const seen = collector();
    const connection = await boxd.client.attachTerminal({ id: terminal.id, onEvent: seen.onEvent });
    connection.send("echo hello-$((6*7))\r");
    await waitFor(() => seen.text().includes("hello-42"), "the command's output");
    // Each chunk carries the size it was written at, so a replay can draw it at that size.
    expect(seen.outputs().every((event) => event.cols === 100 && event.rows === 30)).toBe(true);
    const before = seen.outputs().length;
    connection.resize({ cols: 120, rows: 40 });
    await waitFor(async () => {
      const listed = (await boxd.client.listTerminals()).terminals.find(
        (t) => t.id === terminal.id,
      );
      return listed?.cols === 120;
    }, "the resize");
    connection.send("echo wider-$((2*3))\r");
    await waitFor(() => seen.text().includes("wider-6"), "output after the resize");
    const after = seen.outputs().slice(before);
    expect(after.at(-1)).toMatchObject({ cols: 120, rows: 40 });
    expectConsecutive(seen.outputs(), 1);
    await connection.close();
    await boxd.client.closeTerminal({ id: terminal.id });
  });

  it("resumes after a disconnect with exactly the output that was missed", async () => {
    const { client } = boxd;
    const terminal = await client.openTerminal();
    const first = collector();
    const a = await client.attachTerminal({ id: terminal.id, onEvent: first.onEvent });
    a.send("echo first-$((1+1))\r");
    await waitFor(() => first.text().includes("first-2"), "the first output");
    await a.close();
    const lastSeen = a.lastSeq();

    // While nobody is attached the terminal keeps producing (input sent over plain HTTP).
    await client.writeTerminal({
      id: terminal.id,
      data: "for i in $(seq 1 300); do echo line-$i; done; echo end-$((2+3))\r",
    });
    await waitFor(
      async () =>
        (await readAll(client, terminal.id, lastSeen)).some((e) => e.data.includes("end-5")),
      "the output produced while detached",
    );

    const second = collector();
    const b = await client.attachTerminal({
      id: terminal.id,
      since: lastSeen,
      onEvent: second.onEvent,
    });
    await waitFor(() => second.text().includes("end-5"), "the replay");
    b.send("echo live-$((3+4))\r");
    await waitFor(() => second.text().includes("live-7"), "live output after the replay");
    await b.close();

    // A's events and B's, back to back, are the terminal's whole stream: no gap, no repeat.
    expect(second.events.some((event) => event.type === "gap")).toBe(false);
    const combined = [...first.outputs(), ...second.outputs()];
    expectConsecutive(combined, 1);
    expect(second.outputs()[0]?.seq).toBe(lastSeen + 1);
    const whole = await readAll(client, terminal.id);
    expect(combined.map((event) => event.data).join("")).toBe(
      whole
        .filter((event) => event.seq <= b.lastSeq())
        .map((event) => event.data)
        .join(""),
    );
    for (let line = 1; line <= 300; line += 1) {
      expect(second.text()).toContain(`line-${line}\r\n`);
    }
    await client.closeTerminal({ id: terminal.id });
  });

  it("says what was lost when the replay buffer no longer holds it", async () => {
    const { client } = boxd;
    const terminal = await client.openTerminal();
    await client.writeTerminal({
      id: terminal.id,
      data: "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo done-$((4+4))\r",
    });
    // 3 MB through a pty takes seconds on a busy machine.
    await waitFor(
      async () => (await readAll(client, terminal.id)).some((e) => e.data.includes("done-8")),
      "3 MB of output",
      60_000,
    );
    const seen = collector();
    const connection = await client.attachTerminal({
      id: terminal.id,
      since: 1,
      onEvent: seen.onEvent,
    });
    await waitFor(() => seen.text().includes("done-8"), "the replay");
    await connection.close();
    const [gap, ...rest] = seen.events;
    expect(gap).toMatchObject({ type: "gap", fromSeq: 2 });
    const toSeq = gap?.type === "gap" ? gap.toSeq : 0;
    expectConsecutive(
      rest.filter((event): event is Output => event.type === "output"),
      toSeq + 1,
    );
    await client.closeTerminal({ id: terminal.id });
  }, 90_000);

  it("lists terminals, reports a shell's exit, and forgets closed ones", async () => {
    const { client } = boxd;
    const terminal = await client.openTerminal({ cwd: "" });
    expect((await client.listTerminals()).terminals.map((t) => t.id)).toContain(terminal.id);
    const seen = collector();
    const connection = await client.attachTerminal({ id: terminal.id, onEvent: seen.onEvent });
    connection.send("exit 3\r");
    await waitFor(() => seen.events.some((event) => event.type === "exit"), "the exit event");
    expect(seen.events.at(-1)).toEqual({ type: "exit", exitCode: 3, signal: 0 });
    await connection.closed;
    const listed = (await client.listTerminals()).terminals.find((t) => t.id === terminal.id);
    expect(listed).toMatchObject({ exited: true, exitCode: 3 });

    await client.closeTerminal({ id: terminal.id });
    expect((await client.listTerminals()).terminals.map((t) => t.id)).not.toContain(terminal.id);
    expect(await errorCode(client.writeTerminal({ id: terminal.id, data: "x" }))).toBe(
      "terminal_not_found",
    );
    const attach = client.attachTerminal({ id: terminal.id, onEvent: () => undefined });
    expect(await errorCode(attach)).toBe("terminal_not_found");
  });

  it("does not survive a boxd restart: old ids are terminal_not_found", async () => {
    const own = await startBoxd();
    const terminal = await own.client.openTerminal();
    await own.stop();
    const restarted = await startBoxd({ root: own.root, instanceId: own.instanceId });
    try {
      expect((await restarted.client.listTerminals()).terminals).toEqual([]);
      expect(await errorCode(restarted.client.readTerminal({ id: terminal.id }))).toBe(
        "terminal_not_found",
      );
    } finally {
      await restarted.stop();
    }
  });
});
