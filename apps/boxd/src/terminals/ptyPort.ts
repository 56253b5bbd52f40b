/**
 * The pseudo-terminal a Terminal (terminal.ts) runs its shell on: the part of node-pty's IPty it
 * uses, so a machine without node-pty's native addon (an agent's single file) can serve
 * terminals through another adapter. Adapters: nodePty.ts (boxd in a box), scriptPty.ts (an
 * agent, through util-linux `script`); test/ptyContract.ts is what both must do.
 */

/** How the program on the pty ended: its exit code (0 when a signal ended it), and that signal. */
export interface PtyExit {
  readonly exitCode: number;
  /**
   * The signal's number (1 for SIGHUP); 0 when the program exited by itself — node-pty's
   * convention, which a terminal's exit event has always carried.
   */
  readonly signal: number;
}

export interface PtySpawnOptions {
  readonly cwd: string;
  readonly cols: number;
  readonly rows: number;
  /** The program's whole environment, TERM included. */
  readonly env: Readonly<Record<string, string>>;
}

/** One program on a pty. Listeners are registered right after spawning, before any output. */
export interface Pty {
  /** The process the terminal runs as: the shell (node-pty), or the `script` holding its pty. */
  readonly pid: number;
  /** The size last asked for (by spawn or resize). */
  readonly cols: number;
  readonly rows: number;
  /** Output, decoded as UTF-8 (a character split across reads arrives whole). */
  onData(listener: (data: string) => void): void;
  /** Once, after the last output. */
  onExit(listener: (exit: PtyExit) => void): void;
  /** Input, as typed: applied after every earlier write and resize. */
  write(data: string): void;
  /** Sets the size; the kernel tells the foreground programs (SIGWINCH). */
  resize(cols: number, rows: number): void;
  /** SIGHUP hangs up the shell's whole session, as closing a terminal window does. */
  kill(signal: "SIGHUP"): void;
}

/**
 * Starts `argv` on a new pty; throws a BoxError when this machine cannot (`unsupported`,
 * saying what to install).
 */
export type PtySpawner = (argv: readonly [string, ...string[]], options: PtySpawnOptions) => Pty;
