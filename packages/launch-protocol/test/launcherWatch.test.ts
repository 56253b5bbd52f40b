import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const watchingChild = join(import.meta.dirname, "watchingChild.ts");
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function track(child: ChildProcess): ChildProcess {
  started.push(child);
  return child;
}

/** Resolves once `child` has written `line` to its stdout. */
async function said(child: ChildProcess, line: string): Promise<void> {
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.split("\n").includes(line)) resolve();
    });
    child.once("exit", () => {
      reject(new Error(`exited before saying ${line}; said: ${output}`));
    });
  });
}

describe("watchLauncher", () => {
  it("notices a SIGKILLed parent, whose child it is", async () => {
    // A "launcher" that starts the watching child (sharing its stdout) and tells us its pid.
    const launcher = track(
      spawn(
        process.execPath,
        [
          "-e",
          `const { spawn } = require("node:child_process");
           const child = spawn(process.execPath, ["--import", "tsx", ${JSON.stringify(watchingChild)}], { stdio: ["ignore", "inherit", "inherit"] });
           process.stdout.write("child " + child.pid + "\\n");
           setInterval(() => undefined, 60_000);`,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      ),
    );
    await said(launcher, "watching");
    let output = "";
    launcher.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    launcher.kill("SIGKILL");
    await once(launcher.stdout ?? launcher, "end");
    expect(output).toBe("gone\n");
  });

  it("notices a pid that is not its parent once it is dead, and not before", async () => {
    const other = track(spawn(process.execPath, ["-e", "setInterval(() => undefined, 60_000)"]));
    const watcher = track(
      spawn(process.execPath, ["--import", "tsx", watchingChild, String(other.pid)], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    const exited = once(watcher, "exit");
    await said(watcher, "checked");
    expect(watcher.exitCode).toBeNull();
    other.kill("SIGKILL");
    await exited;
    expect(watcher.exitCode).toBe(0);
  });

  it("stops at once when the pid is already gone", async () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const watcher = track(
      spawn(process.execPath, ["--import", "tsx", watchingChild, String(gone)], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    let output = "";
    watcher.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await once(watcher, "exit");
    expect(output).toBe("watching\ngone\n");
  });
});
