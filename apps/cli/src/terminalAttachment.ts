import type { TerminalStreamEvent } from "@berth/api";
import type { SessionConnection } from "./context.ts";
import { CliError, isNetworkError } from "./errors.ts";
import { TerminalInputQueue, type TerminalInput } from "./terminalInput.ts";

/** Ctrl-]: detaches, as telnet's escape does; the remote shell keeps running. */
const DETACH_KEY = "\u001D";
/** How long a dropped connection may stay down before the CLI gives up. */
const RECONNECT_DEADLINE_MS = 60_000;
const RETRY_DELAY_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Outcome = { readonly code: number } | { readonly error: unknown };

export interface AttachInput {
  readonly session: SessionConnection;
  readonly terminalId: string;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** Shown once keystrokes are taken raw, so nothing typed after it is echoed locally. */
  readonly banner: string;
}

/**
 * A local terminal attached to a remote one: keystrokes and window sizes go out in order
 * (TerminalInputQueue), output arrives over the `terminal.output` subscription. Every output
 * chunk is numbered: after a dropped connection the stream resumes after the last number seen
 * (the event source's Last-Event-ID, or a new subscription from it), and a chunk that arrived
 * already is not written twice. Resolves with the remote shell's exit code, or 0 on detach.
 */
export class TerminalAttachment {
  readonly #io: AttachInput;
  readonly #scope: { workspaceId: string; sessionId: string; id: string };
  readonly #input: TerminalInputQueue;
  #lastSeq = 0;
  /** Since when the output stream has been down; undefined while it is up. */
  #downSince: number | undefined;
  #finished = false;
  #unsubscribe: () => void = () => undefined;
  #settle: (outcome: Outcome) => void = () => undefined;

  constructor(io: AttachInput) {
    this.#io = io;
    this.#scope = { ...io.session.scope, id: io.terminalId };
    const { client } = io.session;
    this.#input = new TerminalInputQueue({
      deadlineMs: RECONNECT_DEADLINE_MS,
      retryMs: RETRY_DELAY_MS,
      sink: {
        send: async (input: TerminalInput) => {
          if (input.kind === "keys")
            await client.terminal.write.mutate({ ...this.#scope, data: input.data });
          else
            await client.terminal.resize.mutate({
              ...this.#scope,
              cols: input.cols,
              rows: input.rows,
            });
        },
        lost: (input) => {
          if (input.kind === "keys")
            this.#note("the connection dropped: retype what you typed last");
        },
        fail: (error) => {
          this.#finish({ error });
        },
      },
    });
  }

  async run(): Promise<number> {
    const { stdin, stdout } = this.#io;
    const outcome = new Promise<Outcome>((resolve) => {
      this.#settle = resolve;
    });
    const onKeys = (chunk: string) => {
      this.#keys(chunk);
    };
    const onResize = () => {
      this.#syncSize();
    };
    const onSignal = (signal: NodeJS.Signals) => {
      this.#finish({ code: signal === "SIGHUP" ? 129 : 143 });
    };
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.setEncoding("utf8");
    stdin.on("data", onKeys);
    stdin.resume();
    stdout.on("resize", onResize);
    process.on("SIGTERM", onSignal).on("SIGHUP", onSignal);
    // A reattached terminal keeps the size it had; this window's may differ.
    this.#syncSize();
    this.#subscribe();
    this.#io.stderr.write(this.#io.banner);
    try {
      const result = await outcome;
      if ("error" in result) throw result.error;
      return result.code;
    } finally {
      this.#finished = true;
      this.#input.close();
      this.#unsubscribe();
      stdin.off("data", onKeys);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      stdout.off("resize", onResize);
      process.off("SIGTERM", onSignal).off("SIGHUP", onSignal);
    }
  }

  /**
   * Reads the window size from the terminal itself (an ioctl), not from the last SIGWINCH: keys
   * typed after a resize are then always sent after it, whichever event Node handles first.
   * `getWindowSize()` and `columns` only repeat what the last SIGWINCH read; tty's
   * `_refreshSize()` asks the terminal (undocumented, but in every Node since 0.x: without it
   * the size is simply the last one signalled).
   */
  #syncSize(): void {
    const stdout = this.#io.stdout as NodeJS.WriteStream & { _refreshSize?: () => void };
    if (!stdout.isTTY) return;
    stdout._refreshSize?.();
    const { columns, rows } = stdout;
    if (columns > 0 && rows > 0) this.#input.resize(columns, rows);
  }

  #keys(chunk: string): void {
    this.#syncSize();
    const detach = chunk.indexOf(DETACH_KEY);
    this.#input.keys(detach === -1 ? chunk : chunk.slice(0, detach));
    if (detach === -1) return;
    this.#note(
      `detached; the shell keeps running: berth terminal --id ${this.#scope.id} -s ${this.#scope.sessionId}`,
    );
    this.#finish({ code: 0 });
  }

  #subscribe(): void {
    if (this.#finished) return;
    const subscription = this.#io.session.client.terminal.output.subscribe(
      { ...this.#scope, lastEventId: this.#lastSeq === 0 ? null : String(this.#lastSeq) },
      {
        onData: (event) => {
          this.#event(event.data);
        },
        // The event source reconnects by itself (sending the last event id); this only tells
        // the person, and gives up after the deadline.
        onConnectionStateChange: (state) => {
          if (state.state === "pending") this.#connected();
          else if (state.state === "connecting" && state.error !== null) this.#disconnected();
        },
        onError: (error) => {
          if (!isNetworkError(error)) {
            this.#finish({ error });
            return;
          }
          this.#disconnected();
          void sleep(RETRY_DELAY_MS).then(() => {
            this.#subscribe();
          });
        },
        // The stream ends after the exit event; ending before it means the server went away.
        onComplete: () => {
          if (this.#finished) return;
          this.#disconnected();
          void sleep(RETRY_DELAY_MS).then(() => {
            this.#subscribe();
          });
        },
      },
    );
    this.#unsubscribe = () => {
      subscription.unsubscribe();
    };
  }

  #connected(): void {
    if (this.#downSince === undefined) return;
    this.#downSince = undefined;
    this.#note("reconnected");
  }

  #disconnected(): void {
    if (this.#downSince === undefined) {
      this.#downSince = Date.now();
      this.#note("connection lost; reconnecting…");
      return;
    }
    if (Date.now() - this.#downSince < RECONNECT_DEADLINE_MS) return;
    this.#finish({
      error: new CliError({
        reason: "unreachable",
        code: "unreachable",
        message: "Lost the connection to Berth for over a minute.",
        hint: `The shell keeps running: reattach with \`berth terminal --id ${this.#scope.id} -s ${this.#scope.sessionId}\`.`,
      }),
    });
  }

  #event(event: TerminalStreamEvent): void {
    switch (event.type) {
      case "output":
        if (event.seq <= this.#lastSeq) return;
        this.#lastSeq = event.seq;
        this.#io.stdout.write(event.data);
        return;
      case "gap":
        this.#lastSeq = Math.max(this.#lastSeq, event.toSeq);
        this.#note("some output was lost while disconnected (the box keeps the last 1 MiB)");
        return;
      case "exit":
        this.#finish({ code: event.exitCode ?? (event.signal === null ? 1 : 128 + event.signal) });
        return;
      case "route_moved":
        this.#finish({ error: routeMovedError(this.#scope.sessionId, event.routedTo) });
        return;
    }
  }

  #note(message: string): void {
    this.#io.stderr.write(`\r\n[berth] ${message}\r\n`);
  }

  #finish(outcome: Outcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#settle(outcome);
  }
}

/** An admin swapped the session: the shell was closed where it ran; a new one opens there. */
function routeMovedError(sessionId: string, to: { kind: "group" | "machine"; id: string }) {
  const where = to.kind === "machine" ? `enrolled machine ${to.id}` : "its group box";
  return new CliError({
    reason: "retry",
    code: "route_moved",
    message: `An admin moved this session to ${where}; the terminal was closed where it ran.`,
    hint: `Open a new one there: \`berth terminal -s ${sessionId}\`.`,
  });
}
