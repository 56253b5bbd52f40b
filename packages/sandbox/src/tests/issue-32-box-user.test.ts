// A box reaches nothing of the host, part 2 (issue 32): every command runs as its box's own
// non-root user, and boxd (root in the box, holding the token) is out of its reach.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deriveBoxToken, type BoxClient } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BoxMetadata } from "../spawner/backend.ts";
import { testBoxMetadata } from "./boxMetadata.ts";
import { boxLayout, readBoxRecord } from "../backends/local/boxFolder.ts";
import { probeBubblewrap } from "../backends/local/bubblewrap.ts";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { localExecutionProfile } from "../spawner/executionProfile.ts";

const ci = process.env.CI === "true" || process.env.CI === "1";
// Only root can give commands another user; under CI (root) nothing is skipped.
const runnable = ci || (process.getuid?.() === 0 && (await probeBubblewrap("bwrap")).ok);
const secret = randomBytes(32).toString("hex");
const nonce = randomBytes(3).toString("hex");
const uids = { first: 2_100_000, last: 2_100_099 };

let dataDir = "";
let backend: LocalBackend;
const boxes: { instanceId: string; client: BoxClient }[] = [];

function metadata(name: string): BoxMetadata {
  return testBoxMetadata(name, nonce);
}

/** The uid line of a host process's status: real, effective, saved, filesystem. */
async function uidsOf(pid: number): Promise<number[]> {
  const status = await readFile(`/proc/${String(pid)}/status`, "utf8");
  return (/^Uid:\s+(.*)$/m.exec(status)?.[1] ?? "").split(/\s+/).map(Number);
}

beforeAll(async () => {
  if (!runnable) return;
  dataDir = await realpath(await mkdtemp(join(tmpdir(), "berth-user-")));
  backend = new LocalBackend({
    dataDir,
    secret,
    isolation: "bubblewrap",
    network: "none",
    boxUids: uids,
  });
  for (const name of ["a", "b"]) {
    const { instanceId } = await backend.create({
      metadata: metadata(name),
      profile: localExecutionProfile,
    });
    boxes.push({ instanceId, client: await backend.connect(instanceId) });
  }
}, 60_000);

afterAll(async () => {
  if (!runnable) return;
  for (const box of boxes) await backend.terminate(box.instanceId);
  await rm(dataDir, { recursive: true, force: true });
});

describe.runIf(runnable)("a box's commands run as its own user", () => {
  it("each box has a uid of the range of its own, which every command runs as, seen from the host", async () => {
    const seen: number[] = [];
    for (const box of boxes) {
      const record = await readBoxRecord(boxLayout({ dataDir, instanceId: box.instanceId }));
      const uid = record?.user?.uid ?? 0;
      expect(uid).toBeGreaterThanOrEqual(uids.first);
      expect(uid).toBeLessThanOrEqual(uids.last);
      // A command that stays a moment: its host pid (the box's /proc shows its own pids, so the
      // command reports its uid itself too), read from the host's procfs.
      const run = await box.client.exec({
        argv: ["sh", "-c", "grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Groups):' /proc/self/status"],
      });
      expect(run.stdout).toMatch(
        new RegExp(`Uid:\\s+${String(uid)}\\s+${String(uid)}\\s+${String(uid)}`),
      );
      expect(run.stdout).toMatch(/CapEff:\s+0+\n/);
      expect(run.stdout).toMatch(/CapBnd:\s+0+\n/);
      expect(run.stdout).toMatch(/NoNewPrivs:\s+1/);
      const sleeper = box.client.exec({ argv: ["sleep", "3"], timeoutMs: 10_000 });
      const hostPid = await waitForHostPid(box.instanceId);
      expect(await uidsOf(hostPid)).toEqual([uid, uid, uid, uid]);
      await sleeper;
      seen.push(uid);
    }
    expect(new Set(seen).size).toBe(2);
  });

  it("cannot open boxd's memory or environment, nor read its token anywhere", async () => {
    const [box] = boxes;
    if (box === undefined) throw new Error("no box");
    const token = deriveBoxToken({ secret, instanceId: box.instanceId });
    const probe = await box.client.exec({
      argv: [
        "sh",
        "-c",
        `for p in /proc/[0-9]*; do
           if grep -q "/opt/berth/boxd/mai[n]" "$p/cmdline" 2>/dev/null; then
             echo "boxd $p";
             head -c 1 "$p/mem" >/dev/null 2>&1 && echo "mem readable";
             cat "$p/environ" >/dev/null 2>&1 && echo "environ readable";
           fi
         done`,
      ],
    });
    expect(probe.stdout).toContain("boxd /proc/");
    expect(probe.stdout).not.toContain("readable");
    const scan = await box.client.exec({
      argv: ["sh", "-c", "cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null; true"],
    });
    expect(scan.stdout).not.toContain(token);
  });

  it("tells a program that could not start apart from one that failed, as its user too", async () => {
    const [box] = boxes;
    if (box === undefined) throw new Error("no box");
    await expect(box.client.exec({ argv: ["no-such-program-here"] })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(box.client.exec({ argv: ["/workspace"] })).rejects.toMatchObject({
      code: "invalid_request",
    });
    // A program that runs and exits 127 itself is an answer, not a start failure.
    expect(await box.client.exec({ argv: ["sh", "-c", "exit 127"] })).toMatchObject({
      exitCode: 127,
    });
  });

  it("owns its workspace: what boxd writes, what commands write, and git works on it", async () => {
    const [box] = boxes;
    if (box === undefined) throw new Error("no box");
    const workspace = boxLayout({ dataDir, instanceId: box.instanceId }).workspace;
    const uid = (await stat(workspace)).uid;
    expect(uid).toBeGreaterThanOrEqual(uids.first);
    await box.client.write({ path: "notes/by-boxd.txt", content: "hi", createParents: true });
    expect((await stat(join(workspace, "notes"))).uid).toBe(uid);
    expect((await stat(join(workspace, "notes", "by-boxd.txt"))).uid).toBe(uid);
    // The command can change what boxd wrote: it is its user's.
    const edit = await box.client.exec({
      argv: ["sh", "-c", "echo more >> notes/by-boxd.txt && touch by-command.txt"],
    });
    expect(edit.exitCode, edit.stderr).toBe(0);
    expect((await stat(join(workspace, "by-command.txt"))).uid).toBe(uid);
    const git = await box.client.exec({
      argv: [
        "sh",
        "-c",
        "git init -q . && git add -A && git -c user.name=t -c user.email=t@x commit -qm one && git log --oneline | wc -l",
      ],
    });
    expect(git.exitCode, git.stderr).toBe(0);
    expect(git.stdout.trim()).toBe("1");
    expect((await box.client.gitStatus({})).branch).toBeDefined();
  });
});

/** A host process's parent, from its stat line (after the command's closing parenthesis). */
async function parentOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, "utf8").catch(() => "");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] ?? 0);
}

/** The host pid of the box's `sleep 3`: a descendant of the box's init (the record's pid). */
async function waitForHostPid(instanceId: string): Promise<number> {
  const record = await readBoxRecord(boxLayout({ dataDir, instanceId }));
  const init = record?.boxd?.pid ?? -1;
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    for (const name of await readdir("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
      if (cmdline !== "sleep\u00003\u0000") continue;
      for (let pid = Number(name); pid > 1; pid = await parentOf(pid))
        if (pid === init) return Number(name);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the box's sleep did not show up on the host");
}
