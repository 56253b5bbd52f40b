// Issue 37, proven end to end on kube-sim: the API as createBerthApi builds it from env with
// BERTH_BACKEND=kubernetes and a kubeconfig naming a kube-sim whose pods run this checkout's boxd.
// Through the same tRPC procedures the local backend's tests call: a session made without a
// backend lands on kubernetes; files, git, exec and a terminal work in its box; a capture, then the
// Sandbox deleted behind Berth's back, and the next calls rematerialize the exact revision. Then
// the reaper (as the worker runs it, on the API's injected clock) drains the box to a suspended
// Sandbox the cold lease remembers; the next call resumes that very box without hydrating, and
// machines.list shows what it runs with; a suspended disk written behind Berth's back is deleted
// and the revision rematerialized. Real Postgres, real HTTP to kube-sim and boxd.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReaperSystem } from "@berth/sandbox";
import {
  BOXD_TEST_IMAGE,
  kubeBoxWorld,
  ManualClock,
  SANDBOXES,
  sandboxGone as sandboxGoneIn,
  sandboxMode as sandboxModeIn,
  type KubeBoxWorld,
} from "@berth/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { workerReaper as buildWorkerReaper } from "./support/workerReaper.ts";
import { createPerson } from "./support/world.ts";

const clock = new ManualClock(new Date());
let kube: KubeBoxWorld;
let kubeDir = "";

beforeAll(async () => {
  kube = await kubeBoxWorld();
  await kube.applyTemplate("berth-box");
  kubeDir = await mkdtemp(join(tmpdir(), "berth-kube-e2e-"));
  await writeFile(join(kubeDir, "config"), kube.sim.kubeConfig());
}, 60_000);
afterAll(async () => {
  await kube[Symbol.asyncDispose]();
  await rm(kubeDir, { recursive: true, force: true });
});

/** The operator's settings: the API's and the worker's processes read the same ones. */
const kubeEnv = () => ({
  BERTH_BACKEND: "kubernetes",
  KUBECONFIG: join(kubeDir, "config"),
  BERTH_KUBE_NAMESPACE: SANDBOXES.namespace,
  BERTH_KUBE_TEMPLATE: "berth-box",
  BERTH_KUBE_IMAGE: BOXD_TEST_IMAGE,
  // kube-sim's pods are host processes: its boxes run unisolated, and say so.
  BERTH_ALLOW_UNISOLATED: "1",
});
// Registered after the hook that writes the kubeconfig: the API is built once it exists.
const suite = useApiSuite({ clock, env: kubeEnv });

let owner: Awaited<ReturnType<typeof callerAs>>;
let workspaceId = "";
beforeAll(async () => {
  const person = await createPerson(suite.api, suite.db, "kube-e2e");
  owner = await callerAs(suite.api, { cookie: person.cookie });
  ({ id: workspaceId } = await owner.workspaces.create({
    slug: `kube-e2e-${crypto.randomUUID().slice(0, 6)}`,
    name: "On kube-sim",
  }));
}, 60_000);

/** The reaper as the worker builds it from the same env, over the API's database and clock. */
function workerReaper(): ReaperSystem {
  return buildWorkerReaper(suite, { clock, env: kubeEnv() });
}

async function leaseOf(sessionId: string) {
  const session = await suite.db.session.findUniqueOrThrow({ where: { id: sessionId } });
  return suite.db.sandboxLease.findFirstOrThrow({
    where: { workspaceId, sandboxGroupId: session.sandboxGroupId },
  });
}

/** The clock past the lease's idle grace: its last holder left, its drain is due. */
async function pastIdleGrace(sessionId: string): Promise<void> {
  const lease = await leaseOf(sessionId);
  expect(lease).toMatchObject({ liveness: "draining", holderCount: 0 });
  clock.advance(Math.max(0, lease.expiresAt.getTime() - (await clock.now()).getTime()) + 1);
}

const sandboxMode = (name: string) => sandboxModeIn(kube, name);
const sandboxGone = (name: string) => sandboxGoneIn(kube, name);

/** The lease's last archive transfer (archive_progress keeps one row per lease, overwritten). */
async function lastTransfer(leaseId: string) {
  const [row] = await suite.db.$queryRaw<{ operation: string; transfer_id: string }[]>`
    SELECT operation, transfer_id::text FROM archive_progress WHERE lease_id = ${leaseId}::uuid`;
  return row;
}

/** The lease's last event, so a test reads the transitions after it. */
async function lastEventId(leaseId: string): Promise<bigint> {
  const last = await suite.db.leaseEvent.findFirstOrThrow({
    where: { leaseId },
    orderBy: { id: "desc" },
  });
  return last.id;
}

async function transitionsSince(leaseId: string, after: bigint): Promise<string[]> {
  const events = await suite.db.leaseEvent.findMany({
    where: { leaseId, id: { gt: after } },
    orderBy: { id: "asc" },
  });
  return events.map((event) => event.transition);
}

const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 37) % 256)).toString(
  "base64",
);

/** The files the session wrote, as the API reads them back. */
async function workspaceFiles(on: { workspaceId: string; sessionId: string }) {
  const text = await owner.fs.read({ ...on, path: "notes/a.txt" });
  const bin = await owner.fs.read({ ...on, path: "notes/bin.dat", encoding: "base64" });
  const log = await owner.git.log({ ...on });
  return { text: text.content, bin: bin.content, log: log.commits.map((c) => c.subject) };
}

/** Output of a terminal until `marker` appears (the box echoes what it runs). */
async function terminalSays(
  on: { workspaceId: string; sessionId: string },
  id: string,
  marker: string,
): Promise<string> {
  // Leaving the loop ends the subscription (its iterator's return stops the stream).
  const stream = await owner.terminal.output({ ...on, id });
  let text = "";
  for await (const tracked of stream) {
    // A server-side caller yields the tracked envelope as the procedure made it, [id, event]
    // (a client over HTTP gets { id, data }, as the type says).
    const [, event] = tracked as unknown as [string, (typeof tracked)["data"]];
    if (event.type === "output") text += event.data;
    if (text.includes(marker) || event.type === "exit") break;
  }
  return text;
}

describe("a session on kube-sim, through the API", () => {
  it("works the box, survives its Sandbox's loss, drains to suspend and resumes without hydrating", async () => {
    const session = await owner.sessions.create({ workspaceId, title: "On the cluster" });
    expect(session.backend).toBe("kubernetes");
    const on = { workspaceId, sessionId: session.id };

    // Files, git, exec, a terminal: in a Kubernetes box.
    await owner.fs.write({ ...on, path: "notes/a.txt", content: "one\n", createParents: true });
    await owner.fs.write({ ...on, path: "notes/bin.dat", content: binary, encoding: "base64" });
    expect((await owner.exec.run({ ...on, argv: ["git", "init", "-q"] })).exitCode).toBe(0);
    await owner.git.add({ ...on, paths: ["notes"] });
    await owner.git.commit({
      ...on,
      message: "first",
      author: { name: "A", email: "a@example.test" },
    });
    const ran = await owner.exec.run({ ...on, argv: ["sh", "-c", "echo $((6*7))"] });
    expect(ran).toMatchObject({ exitCode: 0, stdout: "42\n" });
    const terminal = await owner.terminal.open(on);
    await owner.terminal.write({ ...on, id: terminal.id, data: "echo kube-$((40+2))\n" });
    expect(await terminalSays(on, terminal.id, "kube-42")).toContain("kube-42");
    await owner.terminal.close({ ...on, id: terminal.id });
    const before = await workspaceFiles(on);
    expect(before).toEqual({ text: "one\n", bin: binary, log: ["first"] });
    const first = await leaseOf(session.id);
    expect(first).toMatchObject({ backend: "kubernetes", liveness: "warm" });
    expect(await sandboxMode(first.instanceId ?? "")).toBe("Running");

    // Captured, then the Sandbox deleted behind Berth's back: the exact revision comes back.
    const captured = await owner.archives.capture(on);
    await kube.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: first.instanceId ?? "" });
    // The call that finds the box gone says so (retryable); the next brings the revision back.
    const lost = await owner.fs.read({ ...on, path: "notes/a.txt" }).then(
      () => "answered",
      (error: unknown) => (error as Error).cause,
    );
    expect(lost).toMatchObject({ data: { code: "instance_lost", retryable: true } });
    expect(await workspaceFiles(on)).toEqual(before);
    const rematerialized = await leaseOf(session.id);
    expect(rematerialized.instanceId).not.toBe(first.instanceId);
    expect(rematerialized.selectedRevision).toBe(captured.revision);
    const box = await owner.exec.run({ ...on, argv: ["sh", "-c", "cat notes/a.txt | wc -c"] });
    expect(box.stdout.trim()).toBe("4");

    // Drained by the worker's reaper past the idle grace: suspended, the cold lease remembers it.
    await suite.api.settled();
    const reaper = workerReaper();
    await pastIdleGrace(session.id);
    const swept = await reaper.sweepOnce();
    expect(swept.drains).toEqual([{ leaseId: rematerialized.id, result: "cold" }]);
    const cold = await leaseOf(session.id);
    expect(cold).toMatchObject({
      liveness: "cold",
      instanceId: null,
      suspendedInstanceId: rematerialized.instanceId,
      suspendedAllocationId: rematerialized.allocationId,
    });
    expect(await sandboxMode(rematerialized.instanceId ?? "")).toBe("Suspended");
    const beforeResume = await lastTransfer(cold.id);
    const coldEvent = await lastEventId(cold.id);

    // The next call resumes that very box: no restore transfer, same instance, same revision.
    expect(await workspaceFiles(on)).toEqual(before);
    const resumed = await leaseOf(session.id);
    // Live (draining already when the call's holder has left).
    expect(["warm", "draining"]).toContain(resumed.liveness);
    expect(resumed).toMatchObject({
      instanceId: rematerialized.instanceId,
      suspendedInstanceId: null,
      selectedRevision: cold.selectedRevision,
    });
    // Taken and resumed, never discarded; and no transfer since the drain (a hydrate records one).
    expect(await transitionsSince(cold.id, coldEvent)).toEqual(
      expect.arrayContaining(["take_suspended"]),
    );
    expect(await transitionsSince(cold.id, coldEvent)).not.toContain("discard_suspended");
    await suite.api.settled();
    expect(await lastTransfer(cold.id)).toEqual(beforeResume);
    expect(await sandboxMode(resumed.instanceId ?? "")).toBe("Running");
    // What the resumed box runs with, as its backend reported it: on kube-sim, a host process.
    const [machine] = await owner.machines.list(on);
    expect(machine?.instanceId).toBe(resumed.instanceId);
    expect(machine?.confinement).toEqual({
      isolation: "none",
      network: "host",
      limits: { processes: null, memoryBytes: null, cpuWeight: null, diskBytes: null },
    });

    // Drained again, and its suspended disk written behind Berth's back: deleted, rematerialized.
    await suite.api.settled();
    await pastIdleGrace(session.id);
    expect((await reaper.sweepOnce()).drains).toEqual([{ leaseId: resumed.id, result: "cold" }]);
    const suspendedAgain = await lastEventId(cold.id);
    const folder = kube.sim.kubelet?.claimFolder(
      SANDBOXES.namespace,
      `workspace-${resumed.instanceId ?? ""}`,
    );
    if (folder === undefined) throw new Error("no folder behind the box's PVC");
    await writeFile(join(folder, "intruder.txt"), "not Berth's");
    expect(await workspaceFiles(on)).toEqual(before);
    const replaced = await leaseOf(session.id);
    expect(replaced.instanceId).not.toBe(resumed.instanceId);
    expect(await sandboxGone(resumed.instanceId ?? "")).toBe(true);
    const events = await transitionsSince(cold.id, suspendedAgain);
    expect(events.filter((t) => t.endsWith("_suspended"))).toEqual([
      "take_suspended",
      "discard_suspended",
    ]);
    expect(await codeOf(owner.fs.read({ ...on, path: "intruder.txt" }))).toBe("NOT_FOUND");
  }, 90_000);
});
