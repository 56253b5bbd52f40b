import { randomUUID } from "node:crypto";
import type { TerminalEvent, TerminalInfo } from "@berth/box-protocol";
import { commandLine, type CommandUser } from "../commandUser.ts";
import { TERMINAL_REPLAY_BYTES } from "../limits.ts";
import type { Pty, PtySpawner } from "./ptyPort.ts";
import { ReplayBuffer } from "./replayBuffer.ts";

export type TerminalListener = (event: TerminalEvent) => void;

export interface TerminalOptions {
  /** Real path of the starting folder (already confined). */
  readonly cwd: string;
  /** The same folder relative to the workspace, for listings. */
  readonly cwdPath: string;
  readonly cols: number;
  readonly rows: number;
  readonly env: Readonly<Record<string, string>>;
  /** Who the shell runs as (commandUser.ts); undefined: as boxd. */
  readonly user: CommandUser | undefined;
}

/**
 * One bash on a PTY (the box's PtySpawner: ptyPort.ts). Its output is numbered and kept in a
 * bounded replay buffer, so clients come and go (it outlives every connection) and each
 * resumes from the last number it saw.
 */
export class Terminal {
  readonly id = randomUUID();
  readonly createdAt = new Date().toISOString();
  private readonly pty: Pty;
  private readonly buffer = new ReplayBuffer(TERMINAL_REPLAY_BYTES);
  private readonly listeners = new Set<TerminalListener>();
  /** Long-polling reads (`read`) waiting for the next event, or the terminal's close. */
  private readonly waiters = new Set<() => void>();
  private closed = false;
  private exit: { exitCode: number | null; signal: number | null } | undefined;

  /** Throws what `spawn` throws (a BoxError when this machine has no pty to give). */
  constructor(
    spawn: PtySpawner,
    private readonly options: TerminalOptions,
  ) {
    this.pty = spawn(commandLine(options.user, ["bash"]), {
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      // The prompt shows only the last folder of the path (a local box's workspace lies deep):
      // a prompt wider than the screen wraps, and bash's redraw after a resize counts those
      // wrapped lines at the old width, drawing over the output above it. TERM is always
      // xterm-256color, the terminal every client draws with.
      env: { PROMPT_DIRTRIM: "1", ...options.env, TERM: "xterm-256color" },
    });
    this.pty.onData((data) =>
      this.emit(this.buffer.append(data, { cols: this.pty.cols, rows: this.pty.rows })),
    );
    this.pty.onExit(({ exitCode, signal }) => {
      this.exit = { exitCode, signal };
      this.emit({ type: "exit", ...this.exit });
    });
  }

  info(): TerminalInfo {
    return {
      id: this.id,
      pid: this.pty.pid,
      cols: this.pty.cols,
      rows: this.pty.rows,
      cwd: this.options.cwdPath,
      createdAt: this.createdAt,
      exited: this.exit !== undefined,
      exitCode: this.exit?.exitCode ?? null,
      signal: this.exit?.signal ?? null,
      lastSeq: this.buffer.lastSeq,
    };
  }

  /** What a reader that has everything up to `since` missed (and the exit, once exited). */
  backlog(since: number): TerminalEvent[] {
    const events = this.buffer.since(since);
    if (this.exit !== undefined) events.push({ type: "exit", ...this.exit });
    return events;
  }

  /**
   * The backlog after `since`; when it is empty and `waitMs` > 0, first waits for the next
   * event (or the terminal's close) for at most `waitMs`. Woken by events, not by polling; its
   * timer goes as soon as it is woken. A wake for output a caller ahead of it (since past
   * lastSeq) still lacks answers nothing: the caller reads again.
   */
  async read(since: number, waitMs: number): Promise<TerminalEvent[]> {
    const events = this.backlog(since);
    if (events.length > 0 || waitMs === 0 || this.closed) return events;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, waitMs);
      this.waiters.add(wake);
    });
    return this.backlog(since);
  }

  /**
   * The backlog and the live subscription, taken in one synchronous step: no output can fall
   * between the two, and none arrives twice.
   */
  attach(
    since: number,
    listener: TerminalListener,
  ): { backlog: TerminalEvent[]; detach: () => void } {
    const backlog = this.backlog(since);
    this.listeners.add(listener);
    return { backlog, detach: () => this.listeners.delete(listener) };
  }

  write(data: string): void {
    if (this.exit === undefined) this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.exit === undefined) this.pty.resize(cols, rows);
  }

  /** Hangs up the shell (SIGHUP reaches its whole session, as when a terminal window closes). */
  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.wakeWaiters();
    if (this.exit === undefined) this.pty.kill("SIGHUP");
  }

  private emit(event: TerminalEvent): void {
    for (const listener of this.listeners) listener(event);
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
