import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { killBox } from "@berth/sandbox/testing";
import { describe, expect, it } from "vitest";
import { leaseOf } from "./support/leases.ts";
import { runCli } from "./support/runCli.ts";
import { useServedApi } from "./support/servedApi.ts";

// Every command through the built CLI, against the real API over HTTP, real boxes and Postgres.
// The tests run in order on one workspace: the session made early is its only one, so the
// commands after it find it without -s.

const served = useServedApi();
let sessionId = "";

describe("berth, signed in", () => {
  it("login with email and --password-stdin stores 0600 credentials the next commands use; logout forgets them", async () => {
    const world = served.current;
    const configDir = await world.configDir();
    const env = { BERTH_CONFIG_DIR: configDir };
    const login = await runCli(
      ["login", "--url", world.url, "--email", world.email, "--password-stdin", "--json"],
      { env, input: `${world.password}\n` },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(login.json()).toMatchObject({
      url: world.url,
      email: world.email,
      workspaceId: world.workspaceId,
      workspace: { slug: "cli", role: "owner" },
      credentialsFile: join(configDir, "credentials.json"),
    });
    expect(login.stdout).not.toContain("berth_tok_");
    const file = join(configDir, "credentials.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
    expect(stored).toEqual({
      url: world.url,
      workspaceId: world.workspaceId,
      token: expect.stringMatching(/^berth_tok_/) as string,
    });

    const sessions = await runCli(["sessions", "--json"], { env });
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(sessions.json()).toEqual({ sessions: [] });

    const logout = await runCli(["logout", "--json"], { env });
    expect(logout.json()).toEqual({ removed: true, credentialsFile: file });
    const after = await runCli(["sessions"], { env });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain("berth login");

    // An existing token can be stored as it is; its workspace comes from the token.
    const withToken = await runCli(["login", "--url", world.url, "--token-stdin", "--json"], {
      env,
      input: world.token,
    });
    expect(withToken.code, withToken.stderr).toBe(0);
    expect(withToken.json()).toMatchObject({ workspaceId: world.workspaceId });
  });

  it("sessions create and list; machines lists the session's (not yet started) box", async () => {
    const created = await served.current.berth([
      "sessions",
      "create",
      "--title",
      "cli work",
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { session } = created.json() as { session: { id: string; title: string } };
    expect(session.title).toBe("cli work");
    sessionId = session.id;

    const list = await served.current.berth(["sessions", "--json"]);
    expect(list.json()).toMatchObject({ sessions: [{ id: sessionId, title: "cli work" }] });
    const human = await served.current.berth(["sessions"]);
    expect(human.stdout).toMatch(/^ID\s+TITLE\s+BACKEND\s+CREATED\n/);
    expect(human.stdout).toContain(sessionId);

    const machines = await served.current.berth(["machines", "--json"]);
    expect(machines.json()).toEqual({
      machines: [
        {
          sandboxId: expect.any(String) as unknown,
          sessionId,
          backend: "local",
          name: "cli work (group box)",
          kind: "group",
          state: "cold",
          active: true,
          isSessionGroup: true,
          instanceId: null,
          workspaceGeneration: 0,
          archiveGeneration: null,
          archiveComplete: false,
          leaseEpoch: null,
          holders: { turn: 0, viewer: 0, direct: 0, process: 0 },
          os: null,
          arch: null,
          hasDisplay: false,
          confinement: null,
          lastSeenAt: null,
        },
      ],
    });
    const table = await served.current.berth(["machines"]);
    expect(table.stdout).toMatch(
      /^SESSION\s+MACHINE\s+BACKEND\s+STATE\s+ISOLATION\s+LIMITS\s+INSTANCE\s+EPOCH/,
    );
    expect(table.stdout).toContain("cli work (group box)");

    // An enrolled machine is listed with a session (never in the one-box-per-session list).
    await served.current.db.machine.create({
      data: {
        workspaceId: served.current.workspaceId,
        name: "laptop",
        os: "darwin",
        arch: "arm64",
      },
    });
    const mine = await served.current.berth(["machines", "--session", sessionId, "--json"]);
    expect(
      (mine.json() as { machines: { name: string; kind: string; state: string }[] }).machines.map(
        (m) => [m.name, m.kind, m.state],
      ),
    ).toEqual([
      ["cli work (group box)", "group", "cold"],
      ["laptop", "selfhosted", "offline"],
    ]);
    expect((await served.current.berth(["machines", "--json"])).json()).toMatchObject({
      machines: [{ kind: "group" }],
    });
  });

  it("put streams a file up, ls and cat show it, get streams it back, rm removes it", async () => {
    const world = served.current;
    const local = join(await world.configDir(), "notes.txt");
    const content = `hello from the CLI\n${"x".repeat(100_000)}\n`;
    await writeFile(local, content);
    const put = await world.berth(["put", local, "docs/notes.txt", "-p", "--json"]);
    expect(put.code, put.stderr).toBe(0);
    expect(put.json()).toMatchObject({ path: "docs/notes.txt", size: Buffer.byteLength(content) });
    // The put woke the box (idle again, it drains): machines shows its instance.
    const machines = await world.berth(["machines", "--json"]);
    const [machine] = (machines.json() as { machines: Record<string, unknown>[] }).machines;
    expect(machine).toMatchObject({ workspaceGeneration: 1 });
    expect(typeof machine?.instanceId).toBe("string");
    expect(["warm", "draining"]).toContain(machine?.state);
    const fromStdin = await world.berth(["put", "-", "stdin.txt", "--json"], { input: "piped\n" });
    expect(fromStdin.json()).toMatchObject({ path: "stdin.txt", size: 6 });

    const ls = await world.berth(["ls", "--json"]);
    expect((ls.json() as { entries: { name: string; type: string }[] }).entries).toEqual([
      expect.objectContaining({ name: "docs", type: "dir" }),
      expect.objectContaining({ name: "stdin.txt", type: "file" }),
    ]);
    const lsDocs = await world.berth(["ls", "docs"]);
    expect(lsDocs.stdout).toMatch(/^TYPE\s+MODE\s+SIZE\s+MODIFIED\s+NAME\n/);
    expect(lsDocs.stdout).toMatch(/file\s+\d{4}\s+97\.7 KiB\s+.*notes\.txt\n$/);

    const cat = await world.berth(["cat", "docs/notes.txt"]);
    expect(cat.stdout).toBe(content);
    const catJson = await world.berth(["cat", "stdin.txt", "--json"]);
    expect(catJson.json()).toMatchObject({ path: "stdin.txt", content: "piped\n", size: 6 });

    const copy = join(await world.configDir(), "copy.txt");
    const get = await world.berth(["get", "docs/notes.txt", copy, "--json"]);
    expect(get.code, get.stderr).toBe(0);
    expect(get.json()).toEqual({
      path: "docs/notes.txt",
      local: copy,
      size: Buffer.byteLength(content),
    });
    expect(await readFile(copy, "utf8")).toBe(content);
    const toStdout = await world.berth(["get", "stdin.txt"]);
    expect(toStdout.stdout).toBe("piped\n");

    // Refused as asked: the same command again would not help, a changed one would.
    const exists = await world.berth(["put", local, "docs/notes.txt", "--no-overwrite"]);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain("without --no-overwrite");
    const notEmpty = await world.berth(["rm", "docs"]);
    expect(notEmpty.code).toBe(2);
    expect(notEmpty.stderr).toContain("berth rm -r");

    const rm = await world.berth(["rm", "docs", "-r", "--json"]);
    expect(rm.code, rm.stderr).toBe(0);
    const missing = await world.berth(["cat", "docs/notes.txt"]);
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("berth ls");
  });

  it("exec prints the command's output and exits with its code", async () => {
    const run = await served.current.berth([
      "exec",
      "--",
      "sh",
      "-c",
      "echo out; echo err >&2; exit 3",
    ]);
    expect(run).toMatchObject({ code: 3, stdout: "out\n", stderr: "err\n" });
    const json = await served.current.berth(
      ["exec", "--json", "--", "sh", "-c", "printf '%s' \"$GREETING\""],
      {
        env: {},
      },
    );
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ exitCode: 0, stdout: "", timedOut: false });
    const withEnv = await served.current.berth([
      "exec",
      "-e",
      "GREETING=hi",
      "--json",
      "--",
      "sh",
      "-c",
      "printf '%s' \"$GREETING\"",
    ]);
    expect(withEnv.json()).toMatchObject({ exitCode: 0, stdout: "hi" });
  });

  it("git status, add, commit, log and diff", async () => {
    const world = served.current;
    const init = await world.berth(["exec", "--", "git", "init", "-q", "-b", "main"]);
    expect(init.code, init.stderr).toBe(0);
    await world.berth(["put", "-", "README.md", "--json"], { input: "one\n" });
    const status = await world.berth(["git", "status", "--json"]);
    expect(status.json()).toMatchObject({
      branch: { head: "main", oid: null },
      entries: [
        { kind: "untracked", path: "README.md" },
        { kind: "untracked", path: "stdin.txt" },
      ],
    });
    expect((await world.berth(["git", "add", "README.md", "--json"])).code).toBe(0);
    const commit = await world.berth([
      "git",
      "commit",
      "-m",
      "first",
      "--author",
      "Ada <ada@example.test>",
      "--json",
    ]);
    expect(commit.code, commit.stderr).toBe(0);
    const { oid } = commit.json() as { oid: string };
    expect(oid).toMatch(/^[0-9a-f]{40}$/);

    const log = await world.berth(["git", "log", "--json"]);
    expect(log.json()).toMatchObject({
      commits: [{ oid, subject: "first", authorName: "Ada", authorEmail: "ada@example.test" }],
    });
    await world.berth(["put", "-", "README.md", "--json"], { input: "two\n" });
    const diff = await world.berth(["git", "diff", "--json"]);
    expect((diff.json() as { text: string }).text).toContain("-one\n+two\n");
    const human = await world.berth(["git", "diff"]);
    expect(human.stdout).toContain("+two");
    const all = await world.berth(["git", "commit", "-a", "-m", "second", "--json"]);
    expect(all.code, all.stderr).toBe(0);
    const after = await world.berth(["git", "status", "--json"]);
    expect(after.json()).toMatchObject({ entries: [{ kind: "untracked", path: "stdin.txt" }] });
  });

  it("machines and leases timeline show the warm box and its history", async () => {
    const machines = await served.current.berth(["machines", "--json"]);
    const [machine] = (machines.json() as { machines: Record<string, unknown>[] }).machines;
    // Warm while a call holds it, draining (still serving) between calls.
    expect(machine).toMatchObject({ sessionId, archiveComplete: false });
    expect(machine?.state).toMatch(/^(warm|draining)$/);
    expect(machine?.workspaceGeneration).toBeGreaterThan(0);
    const timeline = await served.current.berth(["leases", "timeline", "--json"]);
    const { events } = timeline.json() as { events: { id: string; toState: string }[] };
    expect(events.map((e) => e.toState)).toContain("warm");
    expect(events[0]?.id).toMatch(/^\d+$/);
    const human = await served.current.berth(["leases", "timeline", "--limit", "1"]);
    expect(human.stderr).toContain("berth leases timeline --after");
  });

  it("archives capture and list, a lost box (exit 7), then restore an older revision", async () => {
    const world = served.current;
    const capture = async () => {
      const run = await world.berth(["archives", "capture", "--json"]);
      expect(run.code, run.stderr).toBe(0);
      return run.json() as { revision: string; generation: number; archiveComplete: boolean };
    };
    const first = await capture();
    expect(first.archiveComplete).toBe(true);
    await world.berth(["put", "-", "later.txt", "--json"], { input: "after the first capture\n" });
    const second = await capture();
    expect(second.generation).toBeGreaterThan(first.generation);
    const list = await world.berth(["archives", "list", "--json"]);
    expect(list.json()).toMatchObject({
      archiveComplete: true,
      archives: [{ revision: second.revision }, { revision: first.revision }],
    });

    const lease = await leaseOf(world, sessionId);
    const instanceId = lease.instanceId ?? "";
    await killBox(instanceId);
    await rm(join(world.dataDir, "boxes", instanceId), { recursive: true, force: true });
    const lost = await world.berth(["ls"]);
    expect(lost.code).toBe(7);
    expect(lost.stderr).toContain("run the same command again");

    const restore = await world.berth([
      "archives",
      "restore",
      first.revision.slice(0, 12),
      "--json",
    ]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.json()).toMatchObject({
      selected: { selectedRevision: first.revision },
      lease: { selectedRevision: first.revision, restoreStatus: "ready" },
    });
    expect((restore.json() as { lease: { liveness: string } }).lease.liveness).toMatch(
      /^(warm|draining)$/,
    );
    // The first revision has the second commit's README but not the file written after it.
    expect((await world.berth(["cat", "README.md"])).stdout).toBe("two\n");
    expect((await world.berth(["cat", "later.txt"])).code).toBe(5);
  });

  it("archives store tells that the store answers and where it is; one that does not exits 9, saying what to check", async () => {
    const world = served.current;
    const archives = join(world.dataDir, "archives");
    const location = pathToFileURL(archives).href;
    const store = await world.berth(["archives", "store", "--json"]);
    expect(store.code, store.stderr).toBe(0);
    expect(store.json()).toEqual({ kind: "filesystem", reachable: true, location });
    expect((await world.berth(["archives", "store"])).stdout).toBe(
      `Archive store: folder, reachable.\nArchives at ${location}.\n`,
    );

    // The disk gone from under it: the folder moved away, a file where it was.
    await rename(archives, `${archives}.away`);
    await writeFile(archives, "");
    try {
      const down = await world.berth(["archives", "store"]);
      expect(down.code).toBe(9);
      expect(down.stdout).toContain("Archive store: folder, unreachable.");
      expect(down.stderr).toMatch(
        /does not answer: cannot write archives under .*check that it is a folder this process may write/,
      );
    } finally {
      await rm(archives);
      await rename(`${archives}.away`, archives);
    }
  });

  it("archives restore of a live box keeps its workspace as a revision of its own, then serves the one asked", async () => {
    const world = served.current;
    await world.berth(["put", "-", "kept.txt", "--json"], { input: "archived\n" });
    const capture = await world.berth(["archives", "capture", "--json"]);
    const asked = (capture.json() as { revision: string }).revision;
    await world.berth(["put", "-", "unarchived.txt", "--json"], {
      input: "only in the live box\n",
    });
    const live = await leaseOf(world, sessionId);
    expect(live.instanceId).not.toBeNull();

    const restore = await world.berth(["archives", "restore", asked.slice(0, 12), "--json"]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.json()).toMatchObject({
      selected: { selectedRevision: asked, epoch: live.epoch + 1 },
      lease: { selectedRevision: asked, restoreStatus: "ready" },
    });
    expect((await world.berth(["cat", "kept.txt"])).stdout).toBe("archived\n");
    expect((await world.berth(["cat", "unarchived.txt"])).code).toBe(5);

    // The live workspace was captured before the box stopped: restore it, without waking.
    const list = await world.berth(["archives", "list", "--json"]);
    const { archives } = list.json() as { archives: { revision: string; generation: number }[] };
    const kept = archives.find((a) => a.generation === live.workspaceGeneration);
    expect(kept?.revision).toBeDefined();
    expect(kept?.revision).not.toBe(asked);
    const back = await world.berth(["archives", "restore", kept?.revision ?? "", "--no-wake"]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain("the next call on the box restores it");
    expect((await leaseOf(world, sessionId)).liveness).toBe("cold");
    expect((await world.berth(["cat", "unarchived.txt"])).stdout).toBe("only in the live box\n");
  });
});
