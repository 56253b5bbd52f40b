// readTerminal's long-poll (waitMs), on the Terminal both boxd and the agent serve it from, with
// each real pty: node-pty (a box) and util-linux script (an agent's machine).
import { tmpdir } from "node:os";
import type { TerminalEvent } from "@berth/box-protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodePtySpawner } from "../src/terminals/nodePty.ts";
import type { PtySpawner } from "../src/terminals/ptyPort.ts";
import { findScriptPrograms } from "../src/terminals/scriptPrograms.ts";
import { scriptPtySpawner } from "../src/terminals/scriptPty.ts";
import type { Terminal } from "../src/terminals/terminal.ts";
import { TerminalRegistry } from "../src/terminals/terminalRegistry.ts";
import { tempFolder } from "./boxdProcess.ts";

/** Long enough that a read answered by its timer instead of an event fails the test's clock. */
const LONG_WAIT_MS = 20_000;

async function scriptSpawner(): Promise<PtySpawner> {
  const found = await findScriptPrograms(process.env.PATH);
  if ("why" in found) throw new Error(found.why);
  return scriptPtySpawner(found);
}

/** Timers pending in this process: a finished read must leave none of its own behind. */
function pendingTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
}

function outputText(events: readonly TerminalEvent[]): string {
  return events.map((event) => (event.type === "output" ? event.data : "")).join("");
}

/** Where a reader that has read all of `events` after `since` stands. */
function advanced(since: number, events: readonly TerminalEvent[]): number {
  let at = since;
  for (const event of events) {
    if (event.type === "output") at = event.seq;
    if (event.type === "gap") at = event.toSeq;
  }
  return at;
}

/** Long-polls from `since` until `done` holds of all it read; that. Fails past a deadline. */
async function readUntil(
  terminal: Terminal,
  since: number,
  done: (events: readonly TerminalEvent[]) => boolean,
): Promise<TerminalEvent[]> {
  const deadline = performance.now() + LONG_WAIT_MS;
  const read: TerminalEvent[] = [];
  let at = since;
  while (!done(read)) {
    // A closed terminal answers at once: without this the loop would never yield to a timer.
    if (performance.now() > deadline)
      throw new Error(`not done within ${String(LONG_WAIT_MS)} ms: ${outputText(read)}`);
    const events = await terminal.read(at, LONG_WAIT_MS);
    read.push(...events);
    at = advanced(at, events);
  }
  return read;
}

function longPollSuite(name: string, makeSpawner: () => Promise<PtySpawner>): void {
  describe(`readTerminal's long-poll: ${name}`, () => {
    let registry: TerminalRegistry;
    beforeAll(async () => {
      registry = new TerminalRegistry(await makeSpawner());
    });
    afterEach(() => {
      registry.closeAll();
    });

    /**
     * A shell that has run its first command (its prompt comes from this machine's bash.bashrc,
     * so the command's output is what is waited for), and where its output stands then.
     */
    const shell = async () => {
      const home = await tempFolder("long-poll-home-");
      const terminal = registry.open({
        cwd: tmpdir(),
        cwdPath: "",
        cols: 80,
        rows: 24,
        env: { PATH: process.env.PATH ?? "", HOME: home, HISTFILE: "/dev/null" },
        user: undefined,
      });
      terminal.write("echo started-$((1+1))\r");
      // Up to the prompt after it (ending "$ " or "# "): nothing more comes until the next input.
      const first = await readUntil(terminal, 0, (events) =>
        /started-2\r\n[\s\S]*[$#] $/.test(outputText(events)),
      );
      return { terminal, since: advanced(0, first) };
    };

    it("waitMs 0 answers at once, with nothing when nothing is new", async () => {
      const { terminal, since } = await shell();
      expect(await terminal.read(since, 0)).toEqual([]);
      expect(await terminal.read(0, 0)).toEqual(terminal.backlog(0));
    });

    it("answers output that arrives during the wait before waitMs, and drops its timer", async () => {
      const { terminal, since } = await shell();
      const timers = pendingTimers();
      const started = performance.now();
      const waiting = terminal.read(since, LONG_WAIT_MS);
      expect(pendingTimers()).toBe(timers + 1);
      terminal.write("echo long-$((6*7))\r");
      const events = await waiting;
      expect(performance.now() - started).toBeLessThan(LONG_WAIT_MS / 2);
      expect(pendingTimers()).toBe(timers);
      expect(events.length).toBeGreaterThan(0);
      expect(events[0]).toMatchObject({ type: "output", seq: since + 1 });
      // The first answer may hold the command's whole output already (chunking is the pty's).
      const rest = await readUntil(terminal, advanced(since, events), (read) =>
        outputText([...events, ...read]).includes("long-42"),
      );
      expect(outputText([...events, ...rest])).toContain("long-42");
    });

    it("an exit wakes the waiter; an exited terminal answers its exit at once", async () => {
      const { terminal, since } = await shell();
      const started = performance.now();
      const waiting = readUntil(terminal, since, (read) => read.some((e) => e.type === "exit"));
      terminal.write("exit 3\r");
      const events = await waiting;
      expect(performance.now() - started).toBeLessThan(LONG_WAIT_MS / 2);
      expect(events.at(-1)).toEqual({ type: "exit", exitCode: 3, signal: 0 });
      const after = performance.now();
      expect(await terminal.read(terminal.info().lastSeq, LONG_WAIT_MS)).toEqual([
        { type: "exit", exitCode: 3, signal: 0 },
      ]);
      expect(performance.now() - after).toBeLessThan(LONG_WAIT_MS / 2);
    });

    it("closing the terminal wakes its waiters at once and leaves no timer behind", async () => {
      const { terminal, since } = await shell();
      const timers = pendingTimers();
      const started = performance.now();
      const waiting = [terminal.read(since, LONG_WAIT_MS), terminal.read(since, LONG_WAIT_MS)];
      expect(pendingTimers()).toBe(timers + 2);
      registry.close(terminal.id);
      await Promise.all(waiting);
      expect(performance.now() - started).toBeLessThan(LONG_WAIT_MS / 2);
      expect(pendingTimers()).toBe(timers);
      // A read of a closed terminal object answers at once instead of waiting again.
      const closedRead = performance.now();
      await terminal.read(terminal.info().lastSeq, LONG_WAIT_MS);
      expect(performance.now() - closedRead).toBeLessThan(LONG_WAIT_MS / 2);
    });
  });
}

longPollSuite("node-pty", () => Promise.resolve(nodePtySpawner));
longPollSuite("util-linux script", scriptSpawner);
