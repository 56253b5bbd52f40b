import { BoxError, type TerminalInfo } from "@berth/box-protocol";
import type { PtySpawner } from "./ptyPort.ts";
import { Terminal, type TerminalOptions } from "./terminal.ts";

/**
 * The open terminals of this boxd. They live in memory only: they survive client disconnects
 * but not a restart, after which their ids are unknown (`terminal_not_found`).
 */
export class TerminalRegistry {
  private readonly terminals = new Map<string, Terminal>();

  /** `spawn`: the ptys of this machine (node-pty in a box, `script` on an agent's machine). */
  constructor(private readonly spawn: PtySpawner) {}

  /** Throws a BoxError when this machine cannot give a pty (`unsupported`, what to install). */
  open(options: TerminalOptions): Terminal {
    const terminal = new Terminal(this.spawn, options);
    this.terminals.set(terminal.id, terminal);
    return terminal;
  }

  get(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (terminal === undefined) {
      throw new BoxError(
        "terminal_not_found",
        `no terminal ${id} (closed, or opened before boxd restarted)`,
      );
    }
    return terminal;
  }

  list(): TerminalInfo[] {
    return [...this.terminals.values()].map((terminal) => terminal.info());
  }

  close(id: string): void {
    this.get(id).close();
    this.terminals.delete(id);
  }

  closeAll(): void {
    for (const terminal of this.terminals.values()) terminal.close();
    this.terminals.clear();
  }
}
