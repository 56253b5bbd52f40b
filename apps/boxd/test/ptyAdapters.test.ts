import { chmod, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodePtySpawner } from "../src/terminals/nodePty.ts";
import { findScriptPrograms, programOnPath } from "../src/terminals/scriptPrograms.ts";
import { scriptPtySpawner } from "../src/terminals/scriptPty.ts";
import { tempFolder } from "./boxdProcess.ts";
import { commandOf, hasEnded, ptyContract, waitUntil, watch } from "./ptyContract.ts";

ptyContract("node-pty", () => Promise.resolve(nodePtySpawner));

async function scriptSpawner() {
  const found = await findScriptPrograms(process.env.PATH);
  if ("why" in found) throw new Error(found.why);
  return scriptPtySpawner(found);
}

ptyContract("util-linux script", scriptSpawner);

describe("the script pty", () => {
  it("hangs up a shell idle at its prompt too, and its jobs: the pty itself is closed", async () => {
    const spawn = await scriptSpawner();
    const env = { PATH: process.env.PATH ?? "", PS1: "ready> ", HISTFILE: "/dev/null" };
    const cwd = await tempFolder("pty-cwd-");
    const running = watch(
      spawn(["bash", "--norc", "--noprofile"], { cwd, env, cols: 80, rows: 24 }),
    );
    await running.until(/ready> /);
    running.pty.write("sleep 300 & echo job=$! at-$((4+4))\r");
    const [, job = ""] = await running.until(/job=(\d+) at-8/);
    await waitUntil(async () => (await commandOf(Number(job))) === "sleep", "the job runs sleep");
    await running.until(/at-8[\s\S]*ready> /);
    running.pty.kill("SIGHUP");
    expect(await running.exited).toEqual({ exitCode: 0, signal: 1 });
    await waitUntil(() => hasEnded(Number(job)), `job ${job} ends with the hangup`);
  });
});

/** A PATH of one folder holding links to these programs of this machine's PATH. */
async function pathWith(names: readonly string[]): Promise<string> {
  const folder = await tempFolder("pty-path-");
  for (const name of names) {
    const program = await programOnPath(name, process.env.PATH);
    if (program === undefined) throw new Error(`${name} is not on this machine's PATH`);
    await symlink(program, join(folder, name));
  }
  return folder;
}

describe("findScriptPrograms", () => {
  it("finds util-linux's script, stty and tty by absolute path", async () => {
    const found = await findScriptPrograms(await pathWith(["script", "stty", "tty"]));
    expect(found).toMatchObject({
      script: expect.stringMatching(/\/script$/) as unknown,
      version: expect.stringContaining("util-linux") as unknown,
    });
  });

  it("says to install util-linux when script is not on the PATH", async () => {
    const found = await findScriptPrograms(await pathWith(["stty", "tty"]));
    expect(found).toEqual({ why: expect.stringContaining("install util-linux") as unknown });
  });

  it("takes no other script (BusyBox's has other options)", async () => {
    const folder = await pathWith(["stty", "tty"]);
    await writeFile(
      join(folder, "script"),
      "#!/bin/sh\necho 'BusyBox v1.36.1 multi-call binary.'\n",
    );
    await chmod(join(folder, "script"), 0o755);
    const found = await findScriptPrograms(folder);
    expect(found).toEqual({ why: expect.stringMatching(/BusyBox.*install util-linux/) as unknown });
  });
});
