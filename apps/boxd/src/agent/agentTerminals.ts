import { BoxError } from "@berth/box-protocol";
import type { Logger } from "pino";
import type { PtySpawner } from "../terminals/ptyPort.ts";
import { findScriptPrograms } from "../terminals/scriptPrograms.ts";
import { scriptPtySpawner } from "../terminals/scriptPty.ts";

/**
 * The ptys of an agent's terminals: util-linux `script` (scriptPty.ts), as the single file an
 * agent runs cannot carry node-pty's native addon. Without it, every openTerminal answers
 * `unsupported`, saying what to install.
 *
 * Decided once, at start: the agent's PATH is fixed for its life, the check runs a program
 * (`script --version`, to tell util-linux's from BusyBox's) that a terminal's synchronous spawn
 * could not wait for, and the log says at once whether this machine serves terminals. The
 * price: a `script` installed while the agent runs counts from its next start, which the
 * answer says.
 */
export async function agentPtySpawner(options: {
  /** The agent's PATH, where `script`, `stty` and `tty` are looked for. */
  readonly searchPath: string | undefined;
  readonly logger: Logger;
}): Promise<PtySpawner> {
  const found = await findScriptPrograms(options.searchPath);
  if ("why" in found) {
    options.logger.warn({ why: found.why }, "terminals unsupported");
    return () => {
      throw new BoxError("unsupported", found.why);
    };
  }
  options.logger.info({ script: found.script, version: found.version }, "terminals through script");
  return scriptPtySpawner(found);
}
