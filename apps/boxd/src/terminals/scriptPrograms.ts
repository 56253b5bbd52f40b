import { execFile } from "node:child_process";
import { access, constants, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** What scriptPty.ts runs, by absolute path: a terminal's own PATH may be anything. */
export interface ScriptPrograms {
  /** util-linux's `script`, which gives the shell its pty. */
  readonly script: string;
  /** What `script --version` says, for the agent's log. */
  readonly version: string;
  /** coreutils' `stty` (sets the size) and `tty` (names the pty). */
  readonly stty: string;
  readonly tty: string;
}

/** Why this machine cannot serve terminals, as a sentence that says what to install. */
export interface ScriptMissing {
  readonly why: string;
}

/**
 * Finds the programs a terminal without node-pty needs, in `searchPath` (the agent's PATH).
 * Only util-linux's `script` will do: BusyBox's and the BSDs' take other options.
 */
export async function findScriptPrograms(
  searchPath: string | undefined,
): Promise<ScriptPrograms | ScriptMissing> {
  const script = await programOnPath("script", searchPath);
  if (script === undefined) {
    return {
      why: "terminals on this machine need `script`, which is not on the agent's PATH: install util-linux (it provides `script`), then restart the agent",
    };
  }
  const version = await versionOf(script);
  if (!/util-linux/.test(version)) {
    return {
      why: `terminals on this machine need util-linux's \`script\`, and ${script} is another (${version || "it gives no version"}): install util-linux (it provides \`script\`) ahead of it on the agent's PATH, then restart the agent`,
    };
  }
  const [stty, tty] = await Promise.all([
    programOnPath("stty", searchPath),
    programOnPath("tty", searchPath),
  ]);
  if (stty === undefined || tty === undefined) {
    return {
      why: "terminals on this machine need `stty` and `tty`, which are not on the agent's PATH: install coreutils, then restart the agent",
    };
  }
  return { script, version, stty, tty };
}

/**
 * The first executable file `name` in the folders of `searchPath`. Relative entries are
 * skipped: they would name folders under whatever the agent's working folder happens to be.
 */
export async function programOnPath(
  name: string,
  searchPath: string | undefined,
): Promise<string | undefined> {
  for (const folder of (searchPath ?? "").split(delimiter)) {
    if (!isAbsolute(folder)) continue;
    const candidate = join(folder, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not there, or not ours to run: the next folder may have it.
    }
  }
  return undefined;
}

async function versionOf(program: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(program, ["--version"], { timeout: 10_000 });
    return `${stdout}${stderr}`.trim().split("\n")[0] ?? "";
  } catch {
    // BusyBox's script, for one, refuses --version.
    return "";
  }
}
