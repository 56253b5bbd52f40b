// Issue 41: a terminal on an enrolled machine (a real agent process, the session swapped to it)
// streams through terminal.output as a box's does — made of long-polling reads down the agent
// channel — and the stream ends with the shell's exit.
import { randomInt } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { TerminalStreamEvent } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { useEnrolledAgent } from "./support/enrolledAgent.ts";
import { eventually } from "./support/realAgent.ts";
import { callerAs } from "./support/testApi.ts";
import type { SeededWorkspace } from "./support/world.ts";

const suite = useApiSuite();
const enrolled = useEnrolledAgent(suite, "alpha");
let a: SeededWorkspace;
let machineId = "";

beforeAll(() => {
  ({ workspace: a, machineId } = enrolled.current);
});

describe("a terminal on a machine", () => {
  it("terminal.output streams what the shell prints, and ends with its exit", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const member = await callerAs(suite.api, { token: a.memberToken });
    const scope = { workspaceId: a.workspaceId, sessionId: a.boxSessionId };
    await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: 0 });

    const terminal = await member.terminal.open(scope);
    expect(terminal.routedTo).toEqual({ kind: "machine", id: machineId });
    const stream = await member.terminal.output({ ...scope, id: terminal.id });
    const events = stream[Symbol.asyncIterator]();
    const seen: TerminalStreamEvent[] = [];
    /** The stream's events until `done` holds of what was seen; false if it ended first. */
    const readUntil = async (done: () => boolean): Promise<boolean> => {
      while (!done()) {
        const next = await events.next();
        if (next.done === true) return false;
        // A server-side caller yields the tracked envelope as the procedure made it, [id, event].
        const [, event] = next.value as unknown as [string, TerminalStreamEvent];
        seen.push(event);
      }
      return true;
    };
    const text = () => seen.map((event) => (event.type === "output" ? event.data : "")).join("");

    // The shell's answer, not the echo of what was typed: the number exists only once it ran.
    const n = randomInt(1_000, 1_000_000);
    await member.terminal.write({ ...scope, id: terminal.id, data: `echo hi-$((${n}+1))\n` });
    expect(await readUntil(() => text().includes(`hi-${String(n + 1)}`))).toBe(true);

    await member.terminal.write({ ...scope, id: terminal.id, data: "exit\n" });
    expect(await readUntil(() => seen.at(-1)?.type === "exit")).toBe(true);
    expect(seen.at(-1)).toEqual({ type: "exit", exitCode: 0, signal: 0 });
    // Nothing follows the exit: the stream ends.
    expect(await events.next()).toMatchObject({ done: true });
    // Output arrived in order, each chunk once.
    const seqs = seen.flatMap((event) => (event.type === "output" ? [event.seq] : []));
    expect(seqs).toEqual(seqs.map((_seq, index) => index + 1));
  }, 60_000);

  it("a terminal on the machine ends with route_moved when the session is swapped back; the shell is closed there", async () => {
    const admin = await callerAs(suite.api, { token: a.adminToken });
    const made = await admin.sessions.create({ workspaceId: a.workspaceId, title: "back" });
    const scope = { workspaceId: a.workspaceId, sessionId: made.id };
    await admin.admin.swap({ ...scope, target: machineId, expectedEpoch: 0 });
    const terminal = await admin.terminal.open(scope);
    expect(terminal).toMatchObject({ routedTo: { kind: "machine", id: machineId }, epoch: null });
    // The shell's process on the machine, so its end can be seen there.
    const pid = terminal.pid;
    expect(() => process.kill(pid, 0)).not.toThrow();
    const stream = await admin.terminal.output({ ...scope, id: terminal.id });
    const seen: TerminalStreamEvent[] = [];
    const read = (async () => {
      for await (const tracked of stream) {
        const [, event] = tracked as unknown as [string, TerminalStreamEvent];
        seen.push(event);
      }
    })();
    await admin.terminal.write({ ...scope, id: terminal.id, data: "echo up-$((3+4))\n" });
    await eventually("the shell's answer", () =>
      Promise.resolve(seen.some((event) => event.type === "output" && event.data.includes("up-7"))),
    );

    await admin.admin.swap({ ...scope, target: "group", expectedEpoch: 1 });
    await read;
    expect(seen.at(-1)).toEqual({
      type: "route_moved",
      activeEpoch: 2,
      routedTo: { kind: "group", id: made.sandboxGroupId },
    });
    // Closed on the machine: the agent ended the shell.
    await eventually("the shell's end on the machine", () =>
      Promise.resolve(
        (() => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        })(),
      ),
    );
  }, 60_000);
});
