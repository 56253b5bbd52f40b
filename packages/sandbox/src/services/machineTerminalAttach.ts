/**
 * A terminal's output stream on an enrolled machine (issue 41). The agent channel carries JSON
 * calls only, no WebSocket, so the stream is a loop of long-polling reads (readTerminal with
 * waitMs): each answers as soon as the terminal has something after `since`. What a caller sees
 * is the WebSocket attach's (box-protocol's terminalAttach.ts): events in order, an unknown
 * terminal rejecting the attach itself, and a connection that ends after `exit`, on `close()`,
 * or when a read fails.
 */
import {
  BoxError,
  MAX_TERMINAL_READ_WAIT_MS,
  type AttachTerminalOptions,
  type TerminalConnection,
  type TerminalEvent,
} from "@berth/box-protocol";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_AGENT_CALL_TIMEOUT_MS } from "../machines/agentChannels.ts";
import type { MachineBoxClient } from "../machines/machineBoxClient.ts";

/**
 * How long each read waits on the machine. A read is one agent call, failed `timeout` after the
 * channels' call timeout (DEFAULT_AGENT_CALL_TIMEOUT_MS, 60 s): waiting a third of it leaves the
 * rest for the request's way down the channel, the reply's POST back and a relay hop between
 * replicas on a slow network, so an idle terminal's read comes back empty, never as a timeout.
 */
export const MACHINE_TERMINAL_WAIT_MS = Math.min(
  MAX_TERMINAL_READ_WAIT_MS,
  Math.floor(DEFAULT_AGENT_CALL_TIMEOUT_MS / 3),
);

/**
 * An agent from before the long-poll ignores waitMs and answers an idle read at once: the loop
 * then reads at most this often instead of back to back. A current agent's empty answer comes
 * only after MACHINE_TERMINAL_WAIT_MS, so it never waits here.
 */
const MIN_EMPTY_READ_INTERVAL_MS = 1_000;

export async function attachMachineTerminal(
  client: Pick<MachineBoxClient, "readTerminal" | "writeTerminal" | "resizeTerminal">,
  options: AttachTerminalOptions,
): Promise<TerminalConnection> {
  const { id } = options;
  let since = options.since ?? 0;
  // The first read answers at once: a terminal the machine does not have (terminal_not_found)
  // rejects the attach, as boxd's refused WebSocket upgrade does.
  const { events: backlog } = await client.readTerminal({ id, since });
  // Read through a function: it changes under the loop's awaits, out of the compiler's sight.
  const ending = new AbortController();
  const ended = () => ending.signal.aborted;
  const end = () => ending.abort();
  const closed = new Promise<void>((resolve) =>
    ending.signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  const deliver = (events: readonly TerminalEvent[]) => {
    for (const event of events) {
      if (ended()) return;
      if (event.type === "output") since = event.seq;
      if (event.type === "gap") since = event.toSeq;
      options.onEvent(event);
      // Nothing follows an exit: the connection ends once it is delivered.
      if (event.type === "exit") end();
    }
  };
  deliver(backlog);
  void (async () => {
    try {
      while (!ended()) {
        const asked = performance.now();
        const { events } = await client.readTerminal({
          id,
          since,
          waitMs: MACHINE_TERMINAL_WAIT_MS,
        });
        // Closed while the read waited: its late answer goes nowhere (deliver checks).
        deliver(events);
        const early = MIN_EMPTY_READ_INTERVAL_MS - (performance.now() - asked);
        if (events.length === 0 && early > 0)
          await sleep(early, undefined, { signal: ending.signal }).catch(() => undefined);
      }
    } catch {
      // A read failing mid-stream (the terminal closed, the machine gone) ends the connection as
      // a WebSocket's loss does: `closed` resolves, and the caller resumes from lastSeq().
      end();
    }
  })();
  // Keystrokes and resizes go one call at a time, in order; a failed one ends the connection.
  let sending = Promise.resolve();
  const transmit = (call: () => Promise<unknown>) => {
    if (ended()) throw new BoxError("unavailable", "the terminal connection is closed");
    sending = sending.then(call).then(
      () => undefined,
      () => end(),
    );
  };
  return {
    send: (data) => transmit(() => client.writeTerminal({ id, data })),
    resize: ({ cols, rows }) => transmit(() => client.resizeTerminal({ id, cols, rows })),
    lastSeq: () => since,
    // Does not wait out a pending read: the connection is over at once.
    close: () => {
      end();
      return closed;
    },
    closed,
  };
}
