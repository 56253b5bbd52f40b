// A real agent process, as a user's machine runs it: boxd.mjs fetched over HTTP from the Berth
// under test into a folder outside the checkout, started with an enrollment code.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENT_ROUTES } from "@berth/box-protocol";

export interface RealAgent {
  readonly process: ChildProcess;
  /** The folder it serves (--root). */
  readonly root: string;
  /** Its own folder: bin/boxd.mjs, state/ (XDG_CONFIG_HOME), root. */
  readonly folder: string;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM (if it still runs), its exit, and its folder removed. */
  stop(): Promise<void>;
}

export async function startRealAgent(options: {
  readonly server: string;
  readonly code: string;
  readonly name: string;
}): Promise<RealAgent> {
  const folder = await mkdtemp(join(tmpdir(), "berth-agent-machine-"));
  const bundle = await fetch(`${options.server}${AGENT_ROUTES.bundle}`);
  if (bundle.status !== 200) throw new Error(`the bundle answered ${String(bundle.status)}`);
  const program = join(folder, "bin", "boxd.mjs");
  const root = join(folder, "work");
  await mkdir(join(folder, "bin"));
  await mkdir(root);
  await writeFile(program, Buffer.from(await bundle.arrayBuffer()));
  const child = spawn(
    process.execPath,
    [program, "agent", "--server", options.server, "--enroll", options.code, "--root", root].concat(
      ["--name", options.name],
    ),
    { cwd: join(folder, "bin"), env: { ...process.env, XDG_CONFIG_HOME: join(folder, "state") } },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    process: child,
    root,
    folder,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Resolves once `condition` holds, reading it every 50 ms; fails naming `what` after 20 s. */
export async function eventually(
  what: string,
  condition: () => Promise<boolean>,
  said: () => string = () => "",
): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen; agent said:\n${said()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
