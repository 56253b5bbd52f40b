import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type {
  AgentReply,
  BoxOperationName,
  TerminalEvent,
  TerminalInfo,
} from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentBerthDouble } from "./agentBerthDouble.ts";
import { startAgent, type AgentProcess } from "./agentProcess.ts";
import { tempFolder } from "./boxdProcess.ts";

const run = promisify(execFile);

// The single file, built afresh and copied to a folder outside the checkout with nothing beside
// it: what a user's machine gets from Berth.
let bundle = "";
let away = "";
let root = "";
let stateDir = "";
let berth: AgentBerthDouble;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  const cache = join(import.meta.dirname, "..", "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  const built = await mkdtemp(join(cache, "agent-bundle-"));
  try {
    await run(process.execPath, [join(import.meta.dirname, "../scripts/bundle.mjs"), built]);
    away = await tempFolder("agent-away-");
    bundle = join(away, "boxd.mjs");
    await copyFile(join(built, "boxd.mjs"), bundle);
  } finally {
    await rm(built, { recursive: true, force: true });
  }
  const machine = await tempFolder("agent-machine-");
  root = join(machine, "root");
  stateDir = join(machine, "state");
  await mkdir(root);
  await writeFile(join(machine, "outside"), "secret\n");
  await symlink(join(machine, "outside"), join(root, "escape"));
  await run("git", ["init", "-q", "-b", "main", root]);
  berth = await AgentBerthDouble.start();
}, 90_000);

afterAll(async () => {
  await Promise.all(agents.map((started) => started.stop()));
  await berth.close();
});

function agent(args: readonly string[], env?: NodeJS.ProcessEnv): AgentProcess {
  const started = startAgent({ bundle, cwd: away, args, env });
  agents.push(started);
  return started;
}

function expectOk(reply: AgentReply): unknown {
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.result;
}

function expectError(reply: AgentReply): string {
  if (reply.ok) throw new Error(`expected a refusal, got ${JSON.stringify(reply.result)}`);
  return reply.error.code;
}

/** A terminal's output read through the channel (readTerminal) until it matches; the text. */
async function outputUntil(id: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 10_000;
  let text = "";
  let since = 0;
  while (!pattern.test(text)) {
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in ${JSON.stringify(text)}`);
    if (since > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const { events } = expectOk(await berth.request("readTerminal", { id, since })) as {
      events: TerminalEvent[];
    };
    for (const event of events) {
      if (event.type !== "output") continue;
      text += event.data;
      since = event.seq;
    }
  }
  return text;
}

describe("boxd.mjs agent, run from a folder outside the checkout", () => {
  it("enrolls, stores its credential 0600, and serves files, exec and git confined to --root", async () => {
    const first = agent([
      "--server",
      berth.url,
      "--enroll",
      berth.code,
      "--root",
      root,
      "--state-dir",
      stateDir,
      "--name",
      "laptop",
    ]);
    await Promise.race([
      berth.connections(1),
      first.exited.then(() => {
        throw new Error(`agent exited: ${first.output()}`);
      }),
    ]);
    expect(berth.enrollments[0]).toMatchObject({ code: berth.code, name: "laptop", os: "linux" });
    expect(berth.hellos[0]).toEqual({
      credential: berth.credential,
      facts: {
        os: "linux",
        arch: process.arch,
        hasDisplay: expect.any(Boolean) as unknown,
        boxdVersion: "0.1.0",
      },
    });

    const file = join(stateDir, `${new URL(berth.url).host}.json`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      server: berth.url,
      machineId: berth.machineId,
      workspaceId: berth.workspaceId,
      name: "laptop",
      credential: berth.credential,
    });

    // Concurrent requests, each answered by id.
    const [written, executed] = await Promise.all([
      berth.request("write", { path: "notes/a.txt", content: "hello\n", createParents: true }),
      berth.request("exec", { argv: ["sh", "-c", "pwd; echo out"] }),
    ]);
    expect(expectOk(written)).toMatchObject({ path: "notes/a.txt" });
    expect(expectOk(executed)).toMatchObject({ exitCode: 0, stdout: `${root}\nout\n` });
    expect(expectOk(await berth.request("read", { path: "notes/a.txt" }))).toMatchObject({
      content: "hello\n",
    });
    const listed = expectOk(await berth.request("list", { path: "" })) as {
      entries: { name: string }[];
    };
    expect(listed.entries.map((entry) => entry.name).sort()).toEqual([".git", "escape", "notes"]);
    expect(expectOk(await berth.request("gitStatus", {}))).toMatchObject({
      branch: { head: "main" },
    });

    // An operation this agent does not know (a newer server's) is refused at once, by id.
    const unknown = await berth.request("teleport" as BoxOperationName, {});
    expect(unknown).toMatchObject({ ok: false, error: { code: "unsupported" } });
    expect(unknown.ok ? "" : unknown.error.message).toContain("fetch the current agent from");

    // A manifest runs on boxd's worker thread, started from the copy inside boxd.mjs.
    const manifest = expectOk(await berth.request("manifest", {})) as { revision: string };
    expect(manifest.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(manifest)).toContain("notes/a.txt");

    // Escapes: `..`, a symlink out of the root, an option smuggled into git; bad input.
    // The same answers boxd gives over HTTP (confinement.test.ts).
    for (const path of ["../outside", "escape", "notes/../../outside"]) {
      expect(expectError(await berth.request("read", { path }))).toBe("outside_workspace");
      expect(expectError(await berth.request("write", { path, content: "pwned" }))).toBe(
        "outside_workspace",
      );
    }
    expect(expectError(await berth.request("list", { path: ".." }))).toBe("outside_workspace");
    expect(expectError(await berth.request("exec", { argv: ["pwd"], cwd: ".." }))).toBe(
      "outside_workspace",
    );
    expect(await readFile(join(root, "..", "outside"), "utf8")).toBe("secret\n");
    // Taken as a path (after `--`), never as git's option: nothing is written outside.
    const injected = join(root, "..", "injected");
    await berth.request("gitDiff", { path: `--output=${injected}` });
    await expect(stat(injected)).rejects.toThrow();
    expect(expectError(await berth.request("read", { nope: 1 }))).toBe("invalid_request");

    expect(first.output()).toMatch(/"op":"write".*"msg":"request served"/);
    expect(await first.stop()).toBe(0);
  }, 60_000);

  it("serves a terminal through the channel, on util-linux script's pty", async () => {
    const before = berth.hellos.length;
    // A home of its own: the shell must not run this machine's dotfiles.
    const home = await tempFolder("agent-home-");
    const started = agent(["--server", berth.url, "--root", root, "--state-dir", stateDir], {
      ...process.env,
      HOME: home,
    });
    await berth.connections(before + 1);
    expect(started.output()).toMatch(/"msg":"terminals through script"/);
    const opened = expectOk(
      await berth.request("openTerminal", { cwd: "notes", cols: 80, rows: 24 }),
    ) as TerminalInfo;
    expect(opened).toMatchObject({ cwd: "notes", cols: 80, rows: 24, exited: false });
    expectOk(await berth.request("writeTerminal", { id: opened.id, data: "echo $((6*7))\n" }));
    expect(await outputUntil(opened.id, /[\r\n]42\r\n/)).toContain("echo $((6*7))");

    expectOk(await berth.request("resizeTerminal", { id: opened.id, cols: 100, rows: 30 }));
    expectOk(await berth.request("writeTerminal", { id: opened.id, data: "stty size; pwd\n" }));
    expect(await outputUntil(opened.id, /30 100\r\n.*\r\n/)).toContain(
      `30 100\r\n${join(root, "notes")}\r\n`,
    );
    const listed = expectOk(await berth.request("listTerminals", {})) as {
      terminals: TerminalInfo[];
    };
    expect(listed.terminals).toEqual([
      expect.objectContaining({ id: opened.id, cols: 100, rows: 30 }),
    ]);

    expectOk(await berth.request("closeTerminal", { id: opened.id }));
    expect(expectOk(await berth.request("listTerminals", {}))).toEqual({ terminals: [] });
    expect(expectError(await berth.request("readTerminal", { id: opened.id }))).toBe(
      "terminal_not_found",
    );
    expect(await started.stop()).toBe(0);
  }, 30_000);

  it("restarted without --enroll, reconnects with the stored credential", async () => {
    const before = berth.hellos.length;
    const second = agent(["--server", berth.url, "--root", root, "--state-dir", stateDir]);
    await berth.connections(before + 1);
    expect(berth.hellos.at(-1)?.credential).toBe(berth.credential);
    expect(expectOk(await berth.request("read", { path: "notes/a.txt" }))).toMatchObject({
      content: "hello\n",
    });
    // Berth drops the channel (a restart): the agent dials back in.
    berth.dropChannel();
    await berth.connections(before + 2);
    expect(second.output()).toMatch(/"msg":"reconnect in \d+ ms"/);

    // Revoked: the next connect is refused with 401 and the agent exits 4, no reconnect.
    berth.revoked = true;
    berth.dropChannel();
    expect(await second.exited).toBe(4);
    expect(second.output()).toMatch(/revoked/);
  }, 30_000);

  it("a used code is refused: exit 3 with the server's message, nothing stored over", async () => {
    const other = join(await tempFolder("agent-state-"), "state");
    const third = agent([
      "--server",
      berth.url,
      "--enroll",
      berth.code,
      "--root",
      root,
      "--state-dir",
      other,
    ]);
    expect(await third.exited).toBe(3);
    expect(third.output()).toMatch(/this enrollment code is used or unknown/);
    await expect(stat(other)).rejects.toThrow();
  });

  it("a reply refused with 401 (revoked while connected) ends the agent with exit 4", async () => {
    berth.revoked = false;
    const before = berth.hellos.length;
    const fourth = agent(["--server", berth.url, "--root", root, "--state-dir", stateDir]);
    await berth.connections(before + 1);
    berth.refuseReplies = true;
    void berth.request("list", { path: "" }); // its reply is refused: never answered
    expect(await fourth.exited).toBe(4);
    expect(fourth.output()).toMatch(/revoked/);
  });

  it("without util-linux's script on its PATH, answers openTerminal unsupported: what to install", async () => {
    berth.refuseReplies = false;
    const bare = await tempFolder("agent-path-");
    for (const program of ["node", "git"]) {
      const { stdout } = await run("sh", ["-c", `command -v ${program}`]);
      await symlink(stdout.trim(), join(bare, program));
    }
    const before = berth.hellos.length;
    const fifth = agent(["--server", berth.url, "--root", root, "--state-dir", stateDir], {
      ...process.env,
      PATH: bare,
    });
    await berth.connections(before + 1);
    const refused = await berth.request("openTerminal", { cols: 80, rows: 24 });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: "unsupported",
        message: expect.stringContaining("install util-linux (it provides `script`)") as unknown,
      },
    });
    expect(fifth.output()).toMatch(/"msg":"terminals unsupported"/);
    // Everything else is served as before.
    expect(expectOk(await berth.request("gitStatus", {}))).toMatchObject({
      branch: { head: "main" },
    });
    expect(await fifth.stop()).toBe(0);
  });
});
