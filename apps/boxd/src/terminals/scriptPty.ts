import { execFile, spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { BoxError } from "@berth/box-protocol";
import type { Pty, PtyExit, PtySpawner, PtySpawnOptions } from "./ptyPort.ts";
import type { ScriptPrograms } from "./scriptPrograms.ts";

const run = promisify(execFile);

/**
 * A pty without a native addon, for an agent's single file: util-linux `script` opens it and
 * runs the shell on it, and talks to us through plain pipes.
 *
 * - `-q -e -c … /dev/null`: no banner, no typescript, the shell's exit code as script's own.
 * - Echo: script's stdin is a pipe, so it leaves the pty's ECHO on (its `--echo auto`): input
 *   is echoed as by any terminal, once — readline turns ECHO off while it edits a line and
 *   echoes it itself. (`--echo never` would leave ECHO off, and readline then echoes nothing.)
 * - Size: script gives the pty no size when its stdin is not a terminal. The command it runs
 *   sets it (`stty`) before it execs the shell; a resize runs `stty -F <the pty>` from here:
 *   TIOCSWINSZ signals SIGWINCH to the pty's foreground group, as node-pty's resize does.
 * - The pty's path: the command writes `tty`'s answer on fd 3 (a pipe of ours that script
 *   passes on), then closes it, so the shell never holds it. That line comes after the first
 *   `stty`, so no resize is overtaken by it.
 * - kill(SIGHUP) is a real hangup, as closing a terminal window is: script dies (SIGKILL, as it
 *   blocks every signal it does not handle, SIGHUP among them), the kernel closes the pty's
 *   master, and hangs up the session: SIGHUP to the shell, which passes it on to its jobs, and
 *   end-of-file to every read of the pty — so even a shell whose readline would miss a bare
 *   SIGHUP (one between its check and its wait) ends.
 */
export function scriptPtySpawner(programs: ScriptPrograms): PtySpawner {
  return (argv, options) => new ScriptPty(programs, argv, options);
}

class ScriptPty implements Pty {
  readonly pid: number;
  private size: { cols: number; rows: number };
  private readonly child: ChildProcess;
  /** The pty's path, once the shell's command has sized it; undefined if it never said. */
  private readonly slave: Promise<string | undefined>;
  /** Writes and resizes, applied in the order they were asked for. */
  private queue: Promise<void> = Promise.resolve();
  private exited = false;
  /** Whether kill hung the session up: script's end is then told as that SIGHUP. */
  private hungUp = false;
  private readonly dataListeners: ((data: string) => void)[] = [];
  private readonly exitListeners: ((exit: PtyExit) => void)[] = [];

  constructor(
    private readonly programs: ScriptPrograms,
    argv: readonly [string, ...string[]],
    options: PtySpawnOptions,
  ) {
    this.size = { cols: options.cols, rows: options.rows };
    this.child = spawn(
      programs.script,
      ["-q", "-e", "-c", this.command(argv, options), "/dev/null"],
      {
        cwd: options.cwd,
        // script runs its command with $SHELL -c: sh, whatever the user's shell (fish, tcsh…).
        env: { ...options.env, PWD: options.cwd, SHELL: "/bin/sh" },
        stdio: ["pipe", "pipe", "pipe", "pipe"],
      },
    );
    // A failed spawn is also answered below: a listener, so it never goes unhandled.
    this.child.once("error", (error) => this.emitData(`${programs.script}: ${error.message}\r\n`));
    if (this.child.pid === undefined) {
      throw new BoxError("internal", `${programs.script} could not be started`);
    }
    this.pid = this.child.pid;
    // Written after script's exit (the shell gone meanwhile): nothing to deliver to.
    this.child.stdin?.on("error", () => undefined);
    this.slave = slavePath(this.child.stdio[3] as Readable);
    for (const output of [this.child.stdout, this.child.stderr]) {
      output?.setEncoding("utf8");
      output?.on("data", (data: string) => this.emitData(data));
    }
    // `close`: after script's exit and the end of its output, so the exit comes last.
    this.child.once("close", (code, signal) => {
      this.exited = true;
      const exit = this.exitOf(code, signal);
      for (const listener of this.exitListeners) listener(exit);
    });
  }

  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  onData(listener: (data: string) => void): void {
    this.dataListeners.push(listener);
  }

  onExit(listener: (exit: PtyExit) => void): void {
    this.exitListeners.push(listener);
  }

  write(data: string): void {
    this.enqueue(() => {
      if (!this.exited) this.child.stdin?.write(data);
    });
  }

  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    this.enqueue(async () => {
      const slave = await this.slave;
      if (slave === undefined || this.exited) return;
      const size = ["cols", String(cols), "rows", String(rows)];
      // Refused only when the pty is gone (the shell exiting meanwhile): nothing left to size.
      await run(this.programs.stty, ["-F", slave, ...size]).catch(() => undefined);
    });
  }

  /** The hangup (the port's only signal): see the class's notes. */
  kill(): void {
    if (this.exited) return;
    this.hungUp = true;
    this.child.kill("SIGKILL");
  }

  private exitOf(code: number | null, signal: NodeJS.Signals | null): PtyExit {
    if (this.hungUp) return { exitCode: 0, signal: constants.signals.SIGHUP };
    if (signal !== null) return { exitCode: 0, signal: constants.signals[signal] };
    // A shell a signal ended is told as script's -e tells it (128 + its number), as $? is.
    return { exitCode: code ?? 0, signal: 0 };
  }

  /** The sh command script runs: size the pty, name it on fd 3, close fd 3, exec `argv`. */
  private command(argv: readonly string[], options: PtySpawnOptions): string {
    const shell = options.env.SHELL;
    return [
      `${quote(this.programs.stty)} cols ${String(options.cols)} rows ${String(options.rows)}`,
      `${quote(this.programs.tty)} >&3`,
      "exec 3>&-",
      // The user's own SHELL back for the shell and what it runs.
      shell === undefined ? "unset SHELL" : `export SHELL=${quote(shell)}`,
      `exec ${argv.map(quote).join(" ")}`,
    ].join("; ");
  }

  private enqueue(step: () => Promise<void> | void): void {
    this.queue = this.queue.then(step);
  }

  private emitData(data: string): void {
    for (const listener of this.dataListeners) listener(data);
  }
}

/** The line the shell's command writes on fd 3, a path under /dev; else undefined. */
function slavePath(stream: Readable): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end === -1) return;
      const line = text.slice(0, end);
      resolve(line.startsWith("/dev/") ? line : undefined);
      stream.destroy();
    });
    // Ended without a line: script failed before the shell's command ran.
    stream.once("close", () => resolve(undefined));
    stream.once("error", () => resolve(undefined));
  });
}

/** `value` as one sh word. */
function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
