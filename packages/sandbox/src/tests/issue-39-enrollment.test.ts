import type { AgentFacts } from "@berth/box-protocol";
import { describe, expect, it } from "vitest";
import {
  authenticateMachine,
  createEnrollmentCode,
  ENROLLMENT_CODE_ALPHABET,
  enrollmentCodeHash,
  EnrollmentRefusedError,
  machineCredentialHash,
  readEnrolledMachines,
  readMachines,
  redeemEnrollmentCode,
  renameMachine,
  revokeMachine,
  requestCredentialRotation,
} from "../machines/index.ts";
import { seedSession, useLeaseWorld, type LeaseWorld } from "./leaseFixture.ts";

const world = useLeaseWorld();
const facts: AgentFacts = { os: "linux", arch: "x64", hasDisplay: false, boxdVersion: "0.0.0" };

async function newCode(w: LeaseWorld, workspaceId: string, ttlMs?: number) {
  return createEnrollmentCode(w.db, {
    workspaceId,
    createdBy: { kind: "user", id: "user-1" },
    now: await w.clock.now(),
    ...(ttlMs === undefined ? {} : { ttlMs }),
  });
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "enrolled",
    (error: unknown) => (error instanceof EnrollmentRefusedError ? error.reason : String(error)),
  );
}

/** Rows of the tables an enrollment writes, for "nothing was written". */
async function counts(w: LeaseWorld) {
  return {
    machines: await w.db.machine.count(),
    credentials: await w.db.machineCredential.count(),
    audit: await w.db.auditEvent.count({ where: { action: "machine.enroll" } }),
  };
}

describe("enrollment codes", () => {
  it("are shown in four groups of five Crockford characters and stored only as a hash", async () => {
    const w = world.current;
    const { workspaceId } = await seedSession(w.db);
    const { code, expiresAt } = await newCode(w, workspaceId);
    expect(code).toMatch(
      new RegExp(`^[${ENROLLMENT_CODE_ALPHABET}]{5}(-[${ENROLLMENT_CODE_ALPHABET}]{5}){3}$`),
    );
    expect(expiresAt.getTime() - (await w.clock.now()).getTime()).toBe(10 * 60_000);
    const rows = await w.db.machineEnrollmentCode.findMany({ where: { workspaceId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.codeHash).toBe(enrollmentCodeHash(code));
    expect(rows[0]?.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(code.replace(/-/g, ""));
    // Typed loosely (lower case, no dashes, O for 0) it is the same code.
    expect(enrollmentCodeHash(code.toLowerCase().replace(/-/g, "").replace(/0/g, "o"))).toBe(
      enrollmentCodeHash(code),
    );
  });

  it("enroll one machine with a credential that authenticates, audited in the code creator's name", async () => {
    const w = world.current;
    const { workspaceId } = await seedSession(w.db);
    const { code } = await newCode(w, workspaceId);
    const now = await w.clock.now();
    const enrolled = await redeemEnrollmentCode(w.db, { code, name: "studio", facts, now });
    expect(enrolled).toMatchObject({ workspaceId, name: "studio" });
    expect(await authenticateMachine(w.db, enrolled.credential)).toEqual({
      machineId: enrolled.machineId,
      workspaceId,
    });
    const credential = await w.db.machineCredential.findFirstOrThrow({
      where: { machineId: enrolled.machineId },
    });
    expect(credential.credentialHash).toBe(machineCredentialHash(enrolled.credential));
    const codeRow = await w.db.machineEnrollmentCode.findFirstOrThrow({ where: { workspaceId } });
    expect(codeRow).toMatchObject({ usedAt: now, machineId: enrolled.machineId });
    const audit = await w.db.auditEvent.findFirstOrThrow({
      where: { workspaceId, action: "machine.enroll" },
    });
    expect(audit).toMatchObject({
      actorKind: "user",
      actorId: "user-1",
      targetKind: "machine",
      targetId: enrolled.machineId,
    });
    expect(audit.after).toMatchObject({ name: "studio", codeId: codeRow.id, os: "linux" });
    const [listed] = await readEnrolledMachines(w.db, { workspaceId }, now);
    expect(listed).toMatchObject({
      id: enrolled.machineId,
      boxdVersion: "0.0.0",
      state: "offline",
      revokedAt: null,
    });
  });

  it("are single-use: of two concurrent redeems exactly one enrolls a machine", async () => {
    const w = world.current;
    const { workspaceId } = await seedSession(w.db);
    const { code } = await newCode(w, workspaceId);
    const now = await w.clock.now();
    const outcomes = await Promise.all(
      [0, 1].map(() => refusal(redeemEnrollmentCode(w.db, { code, facts, now }))),
    );
    expect(outcomes.sort()).toEqual(["enrolled", "used"]);
    expect(await w.db.machine.count({ where: { workspaceId } })).toBe(1);
    expect(await w.db.machineCredential.count({ where: { machine: { workspaceId } } })).toBe(1);
    // And later, once more: still used, nothing written.
    const before = await counts(w);
    expect(await refusal(redeemEnrollmentCode(w.db, { code, facts, now }))).toBe("used");
    expect(await counts(w)).toEqual(before);
  });

  it("expire: past the ttl by the clock a code is refused as expired, writing nothing", async () => {
    const w = world.current;
    const { workspaceId } = await seedSession(w.db);
    const { code } = await newCode(w, workspaceId, 60_000);
    w.clock.advance(60_000);
    const before = await counts(w);
    expect(
      await refusal(redeemEnrollmentCode(w.db, { code, facts, now: await w.clock.now() })),
    ).toBe("expired");
    expect(await counts(w)).toEqual(before);
    const row = await w.db.machineEnrollmentCode.findFirstOrThrow({ where: { workspaceId } });
    expect(row.usedAt).toBeNull();
  });

  it("refuse an unknown code as unknown", async () => {
    const w = world.current;
    const before = await counts(w);
    expect(
      await refusal(
        redeemEnrollmentCode(w.db, {
          code: "AAAAA-BBBBB-CCCCC-DDDDD",
          facts,
          now: await w.clock.now(),
        }),
      ),
    ).toBe("unknown");
    expect(await counts(w)).toEqual(before);
  });

  it("name a machine after the taken name with -2, -3 within its workspace only", async () => {
    const w = world.current;
    const { workspaceId } = await seedSession(w.db);
    const other = await seedSession(w.db);
    const now = await w.clock.now();
    const names: string[] = [];
    for (const ws of [workspaceId, workspaceId, workspaceId, other.workspaceId]) {
      const { code } = await newCode(w, ws);
      names.push((await redeemEnrollmentCode(w.db, { code, name: "box", facts, now })).name);
    }
    expect(names).toEqual(["box", "box-2", "box-3", "box"]);
    const { code } = await newCode(w, workspaceId);
    expect((await redeemEnrollmentCode(w.db, { code, facts, now })).name).toBe("machine");
  });
});

describe("machine admin", () => {
  async function enrolled(w: LeaseWorld, workspaceId: string, name: string) {
    const { code } = await newCode(w, workspaceId);
    return redeemEnrollmentCode(w.db, { code, name, facts, now: await w.clock.now() });
  }

  it("renames within the workspace, refusing a taken name and another workspace's machine", async () => {
    const w = world.current;
    const { workspaceId } = await seedSession(w.db);
    const a = await enrolled(w, workspaceId, "a");
    await enrolled(w, workspaceId, "b");
    const ref = { workspaceId, machineId: a.machineId };
    expect(await renameMachine(w.db, { ...ref, name: "b" })).toEqual({ outcome: "name_taken" });
    expect(await renameMachine(w.db, { ...ref, name: "c" })).toEqual({
      outcome: "renamed",
      before: "a",
      name: "c",
    });
    expect(await renameMachine(w.db, { ...ref, name: "c" })).toEqual({
      outcome: "unchanged",
      name: "c",
    });
    const elsewhere = await seedSession(w.db);
    expect(
      await renameMachine(w.db, { ...ref, workspaceId: elsewhere.workspaceId, name: "d" }),
    ).toEqual({ outcome: "not_found" });
    const row = await w.db.machine.findUniqueOrThrow({ where: { id: a.machineId } });
    expect(row.name).toBe("c");
  });

  it("a clash inside a caller's transaction leaves the transaction usable", async () => {
    const w = world.current;
    const { workspaceId } = await seedSession(w.db);
    const a = await enrolled(w, workspaceId, "a");
    await enrolled(w, workspaceId, "b");
    await w.db.$transaction(async (tx) => {
      expect(await renameMachine(tx, { workspaceId, machineId: a.machineId, name: "b" })).toEqual({
        outcome: "name_taken",
      });
      expect(await tx.machine.count({ where: { workspaceId } })).toBe(2);
    });
  });

  it("revokes: authenticateMachine refuses it, its connection row goes, listed revoked, not for sessions; idempotent", async () => {
    const w = world.current;
    const session = await seedSession(w.db);
    const { workspaceId } = session;
    const m = await enrolled(w, workspaceId, "gone");
    const now = await w.clock.now();
    await w.db.machineConnection.create({
      data: { machineId: m.machineId, replicaId: "r1", connectedAt: now, lastHeartbeatAt: now },
    });
    expect((await readMachines(w.db, session, now)).map((row) => row.name)).toContain("gone");
    const ref = { workspaceId, machineId: m.machineId };
    const elsewhere = await seedSession(w.db);
    expect(await revokeMachine(w.db, { ...ref, workspaceId: elsewhere.workspaceId, now })).toEqual({
      outcome: "not_found",
    });
    expect(await authenticateMachine(w.db, m.credential)).toBeDefined();
    expect(await revokeMachine(w.db, { ...ref, now })).toEqual({
      outcome: "revoked",
      revokedAt: now,
      credentials: 1,
    });
    expect(await authenticateMachine(w.db, m.credential)).toBeUndefined();
    expect(await w.db.machineConnection.count({ where: { machineId: m.machineId } })).toBe(0);
    expect(
      await w.db.machineCredential.count({ where: { machineId: m.machineId, revokedAt: null } }),
    ).toBe(0);
    w.clock.advance(1000);
    expect(await revokeMachine(w.db, { ...ref, now: await w.clock.now() })).toEqual({
      outcome: "already_revoked",
      revokedAt: now,
    });
    const [listed] = await readEnrolledMachines(w.db, { workspaceId }, now);
    expect(listed).toMatchObject({ state: "revoked", revokedAt: now });
    expect((await readMachines(w.db, session, now)).map((row) => row.name)).not.toContain("gone");
    expect(await requestCredentialRotation(w.db, { ...ref, now })).toEqual({ outcome: "revoked" });
  });
});
