// Issue 39 end to end: a real agent process, run from the boxd.mjs Berth serves (fetched over
// HTTP into a folder outside the checkout), enrolls over loopback with a code an admin made,
// holds its channel, and serves files, git and exec through it — confined to its --root. A
// machine of workspace A is unreachable from B; a rotation replaces its credential; a revoked
// machine's agent is cut off at once and stops.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENT_ROUTES, BoxError } from "@berth/box-protocol";
import { machineBoxClient, machineCredentialHash } from "@berth/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApi, type ServedApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { seedWorkspace, type SeededWorkspace } from "./support/world.ts";

const suite = useApiSuite();
let a: SeededWorkspace;
let b: SeededWorkspace;
let served: ServedApi;
let folder: string;
let agent: ChildProcess | undefined;
let output = "";

beforeAll(async () => {
  [a, b] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "alpha"),
    seedWorkspace(suite.api, suite.db, "beta"),
  ]);
  served = await serveApi(suite.api);
  folder = await mkdtemp(join(tmpdir(), "berth-agent-machine-"));
}, 60_000);

afterAll(async () => {
  if (agent !== undefined && agent.exitCode === null) {
    agent.kill("SIGTERM");
    await once(agent, "exit");
  }
  await served.close();
  await rm(folder, { recursive: true, force: true });
});

async function codeError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "resolved";
  } catch (error) {
    return error instanceof BoxError ? error.code : String(error);
  }
}

/** Resolves once `condition` holds, reading it every 50 ms; fails naming `what` after 20 s. */
async function eventually(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen; agent said:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("an enrolled machine, end to end", () => {
  it("enrolls from the served bundle and serves files, git and exec through its channel, confined to its root", async () => {
    const owner = await callerAs(suite.api, { cookie: a.owner.cookie });
    const { code } = await owner.machines.enroll({ workspaceId: a.workspaceId });

    // The machine needs only Node: the bundle comes from Berth, into a folder of its own.
    const bundle = await fetch(`${served.url}${AGENT_ROUTES.bundle}`);
    expect(bundle.status).toBe(200);
    const program = join(folder, "bin", "boxd.mjs");
    await mkdir(join(folder, "bin"));
    await writeFile(program, Buffer.from(await bundle.arrayBuffer()));
    const root = join(folder, "work");
    const state = join(folder, "state");
    await mkdir(root);
    await writeFile(join(folder, "secret.txt"), "outside the root");

    agent = spawn(
      process.execPath,
      [
        program,
        "agent",
        "--server",
        served.url,
        "--enroll",
        code,
        "--root",
        root,
        "--name",
        "laptop",
      ],
      { cwd: join(folder, "bin"), env: { ...process.env, XDG_CONFIG_HOME: state } },
    );
    agent.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));

    let machineId = "";
    await eventually("the machine's channel", async () => {
      const machines = await owner.machines.listWorkspace({ workspaceId: a.workspaceId });
      machineId = machines.find((m) => m.name === "laptop")?.id ?? "";
      return machineId !== "" && suite.api.agentChannels.holds(machineId);
    });
    const listed = await owner.machines.listWorkspace({ workspaceId: a.workspaceId });
    expect(listed.find((m) => m.id === machineId)).toMatchObject({
      state: "online",
      os: "linux",
    });
    // The credential is in a file only the machine's user reads.
    const credentialFile = join(state, "berth-agent", `${new URL(served.url).host}.json`);
    expect((await stat(credentialFile)).mode & 0o777).toBe(0o600);

    const box = machineBoxClient(suite.api.agentChannels, {
      machineId,
      workspaceId: a.workspaceId,
    });
    await box.write({ path: "notes/hello.txt", content: "from berth", createParents: true });
    expect(await readFile(join(root, "notes", "hello.txt"), "utf8")).toBe("from berth");
    expect((await box.read({ path: "notes/hello.txt" })).content).toBe("from berth");
    expect((await box.list({ path: "notes" })).entries.map((entry) => entry.name)).toEqual([
      "hello.txt",
    ]);
    const ran = await box.exec({ argv: ["sh", "-c", "git init -q && git add -A && echo done"] });
    expect(ran).toMatchObject({ exitCode: 0, stdout: "done\n" });
    const status = await box.gitStatus();
    expect(JSON.stringify(status)).toContain("notes/hello.txt");
    // The root confines it: no way out by `..`.
    expect(await codeError(box.read({ path: "../secret.txt" }))).toBe("outside_workspace");

    // Workspace B neither lists nor reaches A's machine.
    const stranger = await callerAs(suite.api, { cookie: b.owner.cookie });
    const theirs = await stranger.machines.listWorkspace({ workspaceId: b.workspaceId });
    expect(theirs.map((m) => m.id)).not.toContain(machineId);
    const fromB = machineBoxClient(suite.api.agentChannels, {
      machineId,
      workspaceId: b.workspaceId,
    });
    expect(await codeError(fromB.list({ path: "" }))).toBe("not_found");

    // Rotated by an admin: the agent exchanges its credential, saves the new one (still 0600),
    // connects with it, and from then on the old one is refused.
    const credentialOf = async () =>
      (JSON.parse(await readFile(credentialFile, "utf8")) as { credential: string }).credential;
    const before = await credentialOf();
    const rotation = await owner.machines.rotateCredential({
      workspaceId: a.workspaceId,
      machineId,
    });
    expect(rotation.delivery).toBe("sent");
    await eventually("the old credential's retirement", async () => {
      const old = await suite.db.machineCredential.findUnique({
        where: { credentialHash: machineCredentialHash(before) },
      });
      return old?.revokedAt != null && suite.api.agentChannels.holds(machineId);
    });
    expect(await credentialOf()).not.toBe(before);
    expect((await stat(credentialFile)).mode & 0o777).toBe(0o600);
    const stale = await fetch(`${served.url}${AGENT_ROUTES.channel}`, {
      headers: { authorization: `Bearer ${before}` },
    });
    expect(stale.status).toBe(401);
    expect((await box.read({ path: "notes/hello.txt" })).content).toBe("from berth");
    const audit = await suite.db.auditEvent.findMany({
      where: { targetId: machineId, action: { startsWith: "machine.credential" } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((row) => [row.action, row.actorKind])).toEqual([
      ["machine.credential.rotation_request", "user"],
      ["machine.credential.rotate", "machine"],
    ]);

    // Revoked: its channel ends at once, its reconnect is refused, and the agent stops (exit 4)
    // without a call having to reach it.
    const exited = once(agent, "exit");
    await owner.machines.revoke({ workspaceId: a.workspaceId, machineId });
    expect(suite.api.agentChannels.holds(machineId)).toBe(false);
    const [exitCode] = (await exited) as [number | null];
    expect(exitCode, output).toBe(4);
  }, 60_000);
});
