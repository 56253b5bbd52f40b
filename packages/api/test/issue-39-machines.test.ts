import { AGENT_ROUTES } from "@berth/box-protocol";
import { authenticateMachine } from "@berth/sandbox";
import { ManualClock } from "@berth/sandbox/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { callerAs, publicUrl } from "./support/testApi.ts";
import { enrollMachine, seedWorkspace, type SeededWorkspace } from "./support/world.ts";

// Enrolled machines (issue 39) through the API: codes made by admins, redeemed by agents over
// POST /agent/v1/enroll, listed per workspace, renamed and revoked with audit rows.

const clock = new ManualClock(new Date());
const suite = useApiSuite({ clock });
let a: SeededWorkspace;
let b: SeededWorkspace;

beforeAll(async () => {
  [a, b] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "alpha"),
    seedWorkspace(suite.api, suite.db, "beta"),
  ]);
}, 60_000);

const facts = { os: "linux", arch: "arm64", hasDisplay: true, boxdVersion: "1.2.3" };

function enrollRequest(body: string): Request {
  return new Request(`${publicUrl}${AGENT_ROUTES.enroll}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
}

async function newCode(ws: SeededWorkspace, ttlMinutes?: number): Promise<string> {
  const owner = await callerAs(suite.api, { cookie: ws.owner.cookie });
  const made = await owner.machines.enroll({
    workspaceId: ws.workspaceId,
    ...(ttlMinutes === undefined ? {} : { ttlMinutes }),
  });
  return made.code;
}

describe("machines.enroll", () => {
  it("gives an admin a code, its expiry and the agent's command, audited; a member is refused", async () => {
    const owner = await callerAs(suite.api, { cookie: a.owner.cookie });
    const now = await clock.now();
    const made = await owner.machines.enroll({ workspaceId: a.workspaceId, ttlMinutes: 5 });
    expect(made.code).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){3}$/);
    expect(made.expiresAt.getTime() - now.getTime()).toBe(5 * 60_000);
    expect(made.command).toBe(
      `node boxd.mjs agent --server ${publicUrl} --enroll ${made.code} --root <DIR>`,
    );
    expect(made.bundleUrl).toBe(`${publicUrl}/agent/boxd.mjs`);
    const audit = await suite.db.auditEvent.findFirstOrThrow({
      where: { workspaceId: a.workspaceId, action: "machine.enrollment_code.create" },
      orderBy: { id: "desc" },
    });
    expect(audit).toMatchObject({ actorKind: "user", actorId: a.owner.id });

    const member = await callerAs(suite.api, { cookie: a.member.cookie });
    expect(await codeOf(member.machines.enroll({ workspaceId: a.workspaceId }))).toBe("FORBIDDEN");
    expect(
      await codeOf(
        (await callerAs(suite.api, { token: a.memberToken })).machines.enroll({
          workspaceId: a.workspaceId,
        }),
      ),
    ).toBe("FORBIDDEN");
    await expect(
      owner.machines.enroll({ workspaceId: a.workspaceId, ttlMinutes: 61 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("POST /agent/v1/enroll", () => {
  it("answers 201 with a credential that authenticates the machine", async () => {
    const code = await newCode(a);
    const response = await suite.api.handleAgentEnroll(
      enrollRequest(JSON.stringify({ code, name: "laptop", ...facts })),
    );
    expect(response.status).toBe(201);
    const body = (await response.json()) as { machineId: string; credential: string };
    expect(body).toMatchObject({ workspaceId: a.workspaceId, name: "laptop" });
    expect(await authenticateMachine(suite.db, body.credential)).toEqual({
      machineId: body.machineId,
      workspaceId: a.workspaceId,
    });
    const machine = await suite.db.machine.findUniqueOrThrow({ where: { id: body.machineId } });
    expect(machine).toMatchObject({
      os: "linux",
      arch: "arm64",
      hasDisplay: true,
      boxdVersion: "1.2.3",
    });
  });

  it("refuses a reused and an expired code with 401 and what to do", async () => {
    const code = await newCode(a);
    expect(
      (await suite.api.handleAgentEnroll(enrollRequest(JSON.stringify({ code, ...facts })))).status,
    ).toBe(201);
    const reused = await suite.api.handleAgentEnroll(
      enrollRequest(JSON.stringify({ code, ...facts })),
    );
    expect(reused.status).toBe(401);
    expect(await reused.json()).toEqual({
      error: {
        code: "unauthorized",
        message:
          "the enrollment code is already used: ask an admin for a new one (berth machines enroll)",
      },
    });

    const stale = await newCode(a, 1);
    clock.advance(60_000);
    const expired = await suite.api.handleAgentEnroll(
      enrollRequest(JSON.stringify({ code: stale, ...facts })),
    );
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({
      error: { code: "unauthorized", message: expect.stringContaining("is expired") as string },
    });
    const unknown = await suite.api.handleAgentEnroll(
      enrollRequest(JSON.stringify({ code: "AAAAA-AAAAA-AAAAA-AAAAA", ...facts })),
    );
    expect(await unknown.json()).toMatchObject({
      error: { message: expect.stringContaining("is unknown") as string },
    });
  });

  it("answers 400 invalid_request to a body that is not JSON or not an enroll request", async () => {
    for (const body of [
      "{not json",
      JSON.stringify({ code: "X" }),
      JSON.stringify({ code: "X", ...facts, name: "a\u0007b" }),
    ]) {
      const response = await suite.api.handleAgentEnroll(enrollRequest(body));
      expect(response.status, body).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
    const huge = await suite.api.handleAgentEnroll(enrollRequest("x".repeat(100_000)));
    expect(huge.status).toBe(400);
  });
});

describe("machines.listWorkspace, rename, revoke", () => {
  it("lists only the workspace's own machines, with their state", async () => {
    const id = await enrollMachine(suite.api, { code: await newCode(a), name: "listed" });
    const asA = await callerAs(suite.api, { cookie: a.member.cookie });
    const asB = await callerAs(suite.api, { cookie: b.owner.cookie });
    const listA = await asA.machines.listWorkspace({ workspaceId: a.workspaceId });
    expect(listA.find((m) => m.id === id)).toMatchObject({
      name: "listed",
      os: "linux",
      state: "offline",
      lastSeenAt: null,
      revokedAt: null,
    });
    const listB = await asB.machines.listWorkspace({ workspaceId: b.workspaceId });
    expect(listB.map((m) => m.id)).not.toContain(id);
    expect(listB.map((m) => m.id)).toEqual([b.machineId]);
    // Connected, its agent heard from just now: online.
    const now = await clock.now();
    await suite.db.machine.update({ where: { id }, data: { lastSeenAt: now } });
    await suite.db.machineConnection.create({
      data: { machineId: id, replicaId: "r1", connectedAt: now, lastHeartbeatAt: now },
    });
    const again = await asA.machines.listWorkspace({ workspaceId: a.workspaceId });
    expect(again.find((m) => m.id === id)?.state).toBe("online");
  });

  it("renames with an audit row; a taken name is CONFLICT, another workspace's machine NOT_FOUND", async () => {
    const owner = await callerAs(suite.api, { cookie: a.owner.cookie });
    const id = await enrollMachine(suite.api, { code: await newCode(a), name: "before" });
    await enrollMachine(suite.api, { code: await newCode(a), name: "taken" });
    expect(
      await codeOf(
        owner.machines.rename({ workspaceId: a.workspaceId, machineId: id, name: "taken" }),
      ),
    ).toBe("CONFLICT");
    expect(
      await owner.machines.rename({ workspaceId: a.workspaceId, machineId: id, name: " after " }),
    ).toEqual({
      machineId: id,
      name: "after",
    });
    const audit = await suite.db.auditEvent.findFirstOrThrow({
      where: { workspaceId: a.workspaceId, action: "machine.rename", targetId: id },
    });
    expect(audit).toMatchObject({
      actorKind: "user",
      actorId: a.owner.id,
      before: { name: "before" },
      after: { name: "after" },
    });
    const outsider = await callerAs(suite.api, { cookie: b.owner.cookie });
    expect(
      await codeOf(
        outsider.machines.rename({ workspaceId: b.workspaceId, machineId: id, name: "x" }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(outsider.machines.revoke({ workspaceId: b.workspaceId, machineId: id })),
    ).toBe("NOT_FOUND");
  });

  it("revokes once with an audit row: the credential is refused, the machine listed revoked", async () => {
    const owner = await callerAs(suite.api, { cookie: a.owner.cookie });
    const code = await newCode(a);
    const response = await suite.api.handleAgentEnroll(
      enrollRequest(JSON.stringify({ code, name: "doomed", ...facts })),
    );
    const { machineId, credential } = (await response.json()) as {
      machineId: string;
      credential: string;
    };
    const revoked = await owner.machines.revoke({ workspaceId: a.workspaceId, machineId });
    expect(await authenticateMachine(suite.db, credential)).toBeUndefined();
    clock.advance(1_000);
    expect(await owner.machines.revoke({ workspaceId: a.workspaceId, machineId })).toEqual(revoked);
    expect(
      await suite.db.auditEvent.count({ where: { action: "machine.revoke", targetId: machineId } }),
    ).toBe(1);
    const listed = await owner.machines.listWorkspace({ workspaceId: a.workspaceId });
    expect(listed.find((m) => m.id === machineId)).toMatchObject({
      state: "revoked",
      revokedAt: revoked.revokedAt,
    });
  });
});
