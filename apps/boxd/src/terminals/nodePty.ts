import { spawn } from "node-pty";
import type { PtySpawner } from "./ptyPort.ts";

/**
 * The pty of boxd in a box: node-pty (a native addon, kept outside boxd's bundle). Its IPty is
 * the port's superset; only the exit's signal, optional in its types, is made explicit.
 */
export const nodePtySpawner: PtySpawner = ([file, ...args], options) => {
  const pty = spawn(file, args, {
    // node-pty sets TERM to its name: the one the caller's environment gives.
    name: options.env.TERM ?? "xterm-256color",
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    env: { ...options.env },
  });
  return {
    get pid() {
      return pty.pid;
    },
    get cols() {
      return pty.cols;
    },
    get rows() {
      return pty.rows;
    },
    onData: (listener) => void pty.onData(listener),
    onExit: (listener) =>
      void pty.onExit(({ exitCode, signal }) => listener({ exitCode, signal: signal ?? 0 })),
    write: (data) => pty.write(data),
    resize: (cols, rows) => pty.resize(cols, rows),
    // The shell alone is signalled (node-pty's kill; its pty stays open until the shell ends):
    // a shell idle in readline can miss a SIGHUP landing between its signal check and its
    // wait, until the next key. scriptPty.ts closes the pty instead.
    kill: (signal) => pty.kill(signal),
  };
};
