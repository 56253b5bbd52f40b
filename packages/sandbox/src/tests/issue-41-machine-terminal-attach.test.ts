// A machine's terminal attach (machineTerminalAttach.ts) over real AgentChannels, the agent played
// by the test at the channel's port (its sink), so each read is answered exactly when the test
// says: the order events arrive in, what ends the connection, and that close() does not wait
// out a pending long-poll.
import {
  BoxError,
  type AgentRequest,
  type BoxErrorCode,
  type TerminalEvent,
} from "@berth/box-protocol";
import { useTestDatabase } from "@berth/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentChannels,
  DEFAULT_AGENT_CALL_TIMEOUT_MS,
  machineBoxClient,
  type AgentEvent,
  type ConnectingMachine,
} from "../machines/index.ts";
import { machineBox } from "../services/machineBox.ts";
import { MACHINE_TERMINAL_WAIT_MS } from "../services/machineTerminalAttach.ts";
import { ManualClock } from "../testing/manualClock.ts";
import { seedMachine } from "./machineFixture.ts";

const database = useTestDatabase();
const FACTS = { os: "linux", arch: "x64", hasDisplay: false, boxdVersion: "0.1.0" };
const opened: AgentChannels[] = [];

afterEach(async () => {
  for (const channels of opened.splice(0)) await channels.close();
});

/** The agent's end of a channel: each request as it comes down, answered by the test. */
class ScriptedAgent {
  readonly #requests: AgentRequest[] = [];
  #arrived: (() => void) | undefined;

  constructor(
    private readonly channels: AgentChannels,
    private readonly machine: ConnectingMachine,
  ) {}

  readonly sink = (event: AgentEvent): void => {
    if (event.event !== "request") return;
    this.#requests.push(JSON.parse(event.data) as AgentRequest);
    this.#arrived?.();
  };

  get sent(): number {
    return this.#requests.length;
  }

  /** The request after the `index` first ones, once it has come down. */
  async request(index: number): Promise<AgentRequest> {
    while (this.#requests.length <= index)
      await new Promise<void>((resolve) => (this.#arrived = resolve));
    return this.#requests[index] as AgentRequest;
  }

  async answer(request: AgentRequest, events: readonly TerminalEvent[]): Promise<void> {
    await this.channels.reply(this.machine, { id: request.id, ok: true, result: { events } });
  }

  /** writeTerminal's and resizeTerminal's answer. */
  async acknowledge(request: AgentRequest): Promise<void> {
    await this.channels.reply(this.machine, { id: request.id, ok: true, result: { ok: true } });
  }

  async refuse(request: AgentRequest, code: BoxErrorCode): Promise<void> {
    await this.channels.reply(this.machine, {
      id: request.id,
      ok: false,
      error: { code, message: `${code} (scripted)` },
    });
  }
}

async function machineWithAgent() {
  const db = database.current.prisma;
  const machine = await seedMachine(db);
  const channels = new AgentChannels({ db, clock: new ManualClock(), heartbeatMs: 0 });
  opened.push(channels);
  const agent = new ScriptedAgent(channels, machine);
  await channels.open(machine, FACTS, agent.sink);
  return { agent, box: machineBox(machineBoxClient(channels, machine), machine.machineId) };
}

const output = (seq: number, data: string): TerminalEvent => ({
  type: "output",
  seq,
  data,
  cols: 80,
  rows: 24,
});

describe("a machine's terminal attach", () => {
  it("delivers the backlog, then each long-poll's events in order, advancing since past gaps", async () => {
    const { agent, box } = await machineWithAgent();
    const seen: TerminalEvent[] = [];
    const attaching = box.attachTerminal({ id: "t1", since: 0, onEvent: (e) => seen.push(e) });
    const first = await agent.request(0);
    // The first read answers at once (waitMs 0): a refusal can reject the attach itself.
    expect(first).toMatchObject({ op: "readTerminal", input: { id: "t1", since: 0, waitMs: 0 } });
    await agent.answer(first, [output(1, "a")]);
    const connection = await attaching;

    const poll = await agent.request(1);
    expect(poll.input).toEqual({ id: "t1", since: 1, waitMs: MACHINE_TERMINAL_WAIT_MS });
    expect(MACHINE_TERMINAL_WAIT_MS * 2).toBeLessThan(DEFAULT_AGENT_CALL_TIMEOUT_MS);
    await agent.answer(poll, [{ type: "gap", fromSeq: 2, toSeq: 4 }, output(5, "b")]);
    expect((await agent.request(2)).input).toMatchObject({ since: 5 });
    expect(seen).toEqual([output(1, "a"), { type: "gap", fromSeq: 2, toSeq: 4 }, output(5, "b")]);
    expect(connection.lastSeq()).toBe(5);

    const empty = await agent.request(2);
    await agent.answer(empty, []);
    const exit = await agent.request(3);
    expect(exit.input).toMatchObject({ since: 5 });
    await agent.answer(exit, [output(6, "c"), { type: "exit", exitCode: 0, signal: 0 }]);
    await connection.closed;
    expect(seen.slice(3)).toEqual([output(6, "c"), { type: "exit", exitCode: 0, signal: 0 }]);
    // Nothing follows an exit: no further read.
    expect(agent.sent).toBe(4);
  });

  it("close() ends at once while a long-poll waits; its late answer is not delivered", async () => {
    const { agent, box } = await machineWithAgent();
    const seen: TerminalEvent[] = [];
    const attaching = box.attachTerminal({ id: "t1", since: 3, onEvent: (e) => seen.push(e) });
    await agent.answer(await agent.request(0), []);
    const connection = await attaching;
    const waiting = await agent.request(1);
    // Resolves without the agent answering the pending read.
    await connection.close();
    await connection.closed;
    await agent.answer(waiting, [output(4, "late")]);
    expect(seen).toEqual([]);
    expect(agent.sent).toBe(2);
    expect(() => connection.send("ls\n")).toThrow(BoxError);
  });

  it("an unknown terminal rejects the attach; a read failing mid-stream ends the connection", async () => {
    const { agent, box } = await machineWithAgent();
    const refused = box.attachTerminal({ id: "gone", onEvent: () => undefined });
    await agent.refuse(await agent.request(0), "terminal_not_found");
    await expect(refused).rejects.toMatchObject({ code: "terminal_not_found" });

    const attaching = box.attachTerminal({ id: "t1", onEvent: () => undefined });
    await agent.answer(await agent.request(1), []);
    const connection = await attaching;
    // Closed meanwhile (terminal.close on another connection): the next read is refused.
    await agent.refuse(await agent.request(2), "terminal_not_found");
    await connection.closed;
    expect(agent.sent).toBe(3);
    expect(() => connection.send("ls\n")).toThrow(/closed/);
  });

  it("sends keystrokes and resizes one call at a time, in order", async () => {
    const { agent, box } = await machineWithAgent();
    const attaching = box.attachTerminal({ id: "t1", onEvent: () => undefined });
    await agent.answer(await agent.request(0), []);
    const connection = await attaching;
    await agent.request(1); // the long-poll, left waiting
    connection.send("one");
    connection.resize({ cols: 100, rows: 30 });
    const write = await agent.request(2);
    expect(write).toMatchObject({ op: "writeTerminal", input: { id: "t1", data: "one" } });
    // The resize waits for the write's answer.
    expect(agent.sent).toBe(3);
    await agent.acknowledge(write);
    expect(await agent.request(3)).toMatchObject({
      op: "resizeTerminal",
      input: { id: "t1", cols: 100, rows: 30 },
    });
    await connection.close();
  });
});
