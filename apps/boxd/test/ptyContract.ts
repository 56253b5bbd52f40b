import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Pty, PtyExit, PtySpawner } from "../src/terminals/ptyPort.ts";

/** A pty under test: its output so far, its exit, and a wait for what it prints. */
export interface Running {
  readonly pty: Pty;
  readonly text: () => string;
  readonly exited: Promise<PtyExit>;
  /** Resolves once the output from `from` on matches; fails past the deadline with it. */
  until(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
}

const DEADLINE_MS = 10_000;

export function watch(pty: Pty): Running {
  let text = "";
  const waiters = new Set<() => void>();
  pty.onData((data) => {
    text += data;
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise<PtyExit>((resolve) => pty.onExit(resolve));
  return {
    pty,
    text: () => text,
    exited,
    until: (pattern, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text.slice(from));
          if (match === null) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `no ${String(pattern)} within ${String(DEADLINE_MS)} ms in ${JSON.stringify(text)}`,
            ),
          );
        }, DEADLINE_MS);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}

/** Gone, or a zombie nobody reaped yet (a container's pid 1 may not): either way, ended. */
export async function hasEnded(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${String(pid)}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

export async function commandOf(pid: number): Promise<string | undefined> {
  return readFile(`/proc/${String(pid)}/comm`, "utf8").then(
    (comm) => comm.trim(),
    () => undefined,
  );
}

export async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * What every PtySpawner (src/terminals/ptyPort.ts) must do, as Terminal relies on it: a
 * suite each adapter's test file runs with its own spawner.
 */
export function ptyContract(name: string, makeSpawner: () => Promise<PtySpawner>): void {
  describe(`pty contract: ${name}`, () => {
    let spawn: PtySpawner;
    const started: Running[] = [];
    beforeAll(async () => {
      spawn = await makeSpawner();
    });
    afterEach(() => {
      for (const running of started.splice(0)) running.pty.kill("SIGHUP");
    });

    const env = {
      PATH: process.env.PATH ?? "",
      TERM: "xterm-256color",
      HOME: tmpdir(),
      HISTFILE: "/dev/null",
      PS1: "ready> ",
      GREETING: "hello from the env",
    };
    const start = (argv: readonly [string, ...string[]], size = { cols: 80, rows: 24 }) => {
      const running = watch(spawn(argv, { cwd: tmpdir(), env, ...size }));
      started.push(running);
      return running;
    };
    /** An interactive bash without dotfiles, at its first prompt. */
    const shell = async (size?: { cols: number; rows: number }) => {
      const running = start(["bash", "--norc", "--noprofile"], size);
      await running.until(/ready> /);
      return running;
    };

    it("runs argv (each word as it is) in cwd with env; its output comes before its exit code", async () => {
      const running = start([
        "bash",
        "-c",
        `pwd; echo "$GREETING"; printf '%s\\n' "it's"; echo out-$((6*7)); exit 7`,
      ]);
      const exit = await running.exited;
      expect(exit).toEqual({ exitCode: 7, signal: 0 });
      expect(running.text()).toContain(`${tmpdir()}\r\nhello from the env\r\nit's\r\nout-42\r\n`);
      expect(running.pty.pid).toBeGreaterThan(0);
    });

    it("echoes typed input once, as a terminal does, and keeps the terminal's echo on", async () => {
      const running = await shell();
      running.pty.write("echo typed-$((2+3))\r");
      await running.until(/typed-5/);
      expect(running.text().split("echo typed-$((2+3))")).toHaveLength(2);
      // Programs that leave echoing to the terminal (cat, read) see it on.
      const from = running.text().length;
      running.pty.write("stty -a\r");
      const [settings = ""] = await running.until(/[\s\S]*echoctl/, from);
      expect(settings).toMatch(/\secho\s/);
      running.pty.write("exit 3\r");
      expect(await running.exited).toEqual({ exitCode: 3, signal: 0 });
    });

    it("has the size it was opened with, and a resize's: told to the foreground (SIGWINCH)", async () => {
      const running = await shell({ cols: 91, rows: 27 });
      expect({ cols: running.pty.cols, rows: running.pty.rows }).toEqual({ cols: 91, rows: 27 });
      running.pty.write("stty size\r");
      await running.until(/27 91\r\n/);
      // A foreground program that ends when the window changes: armed before the resize.
      const from = running.text().length;
      running.pty.write(
        `sh -c 'trap "echo winch-\\$((3*3)); exit" WINCH; echo arm-$((1+1)); while :; do sleep 0.05; done'\r`,
      );
      await running.until(/arm-2/, from);
      running.pty.resize(120, 40);
      expect({ cols: running.pty.cols, rows: running.pty.rows }).toEqual({ cols: 120, rows: 40 });
      await running.until(/winch-9/, from);
      // Input written after a resize sees it.
      running.pty.resize(100, 30);
      running.pty.write("stty size\r");
      await running.until(/30 100\r\n/, from);
    });

    it("kill(SIGHUP) hangs up the shell and its jobs", async () => {
      const running = await shell();
      // Asked of a shell waiting for a command: node-pty's kill signals the shell alone, which
      // readline at a prompt can miss (a signal between its check and its wait).
      running.pty.write(
        `sleep 300 & echo job=$!; sh -c 'echo fg=$$ at-$((4+4)); exec sleep 301'\r`,
      );
      const [, fg = ""] = await running.until(/fg=(\d+) at-8/);
      const [, job = ""] = await running.until(/job=(\d+)/);
      const pids = [Number(job), Number(fg)];
      // Until each has exec'd sleep, bash's own handlers could take the signal.
      await waitUntil(
        async () => (await Promise.all(pids.map(commandOf))).every((comm) => comm === "sleep"),
        "both run sleep",
      );
      running.pty.kill("SIGHUP");
      expect(await running.exited).toEqual({ exitCode: 0, signal: 1 });
      await waitUntil(
        async () => (await Promise.all(pids.map(hasEnded))).every(Boolean),
        `${job} and ${fg} end with their shell's hangup`,
      );
    });
  });
}
