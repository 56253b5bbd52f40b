import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { createPerson, rowHashes, seedWorkspace } from "./support/world.ts";

const suite = useApiSuite();

describe("members and roles", () => {
  it("an admin changes a member's role and removes a member; each change is audited", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "roles");
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    await owner.members.setRole({
      workspaceId: world.workspaceId,
      userId: world.member.id,
      role: "admin",
    });
    await owner.members.remove({ workspaceId: world.workspaceId, userId: world.spare.id });
    const members = await owner.members.list({ workspaceId: world.workspaceId });
    expect(members.map((m) => [m.userId, m.role]).sort()).toEqual(
      [
        [world.owner.id, "owner"],
        [world.member.id, "admin"],
      ].sort(),
    );
    const { events } = await owner.audit.list({ workspaceId: world.workspaceId });
    expect(
      events
        .slice(0, 2)
        .map((e) => [e.action, e.actorKind, e.actorId, e.targetId, e.before, e.after]),
    ).toEqual([
      ["member.remove", "user", world.owner.id, world.spare.id, { role: "member" }, null],
      [
        "member.set_role",
        "user",
        world.owner.id,
        world.member.id,
        { role: "member" },
        { role: "admin" },
      ],
    ]);
  });

  it("an admin cannot touch an owner nor hand out ownership", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "ceiling");
    await suite.db.membership.update({
      where: { workspaceId_userId: { workspaceId: world.workspaceId, userId: world.member.id } },
      data: { role: "admin" },
    });
    const admin = await callerAs(suite.api, { cookie: world.member.cookie });
    const before = await rowHashes(suite.db);
    const input = { workspaceId: world.workspaceId };
    expect(await codeOf(admin.members.remove({ ...input, userId: world.owner.id }))).toBe(
      "FORBIDDEN",
    );
    expect(
      await codeOf(admin.members.setRole({ ...input, userId: world.owner.id, role: "member" })),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(admin.members.setRole({ ...input, userId: world.spare.id, role: "owner" })),
    ).toBe("FORBIDDEN");
    expect(await codeOf(admin.invitations.create({ ...input, role: "owner" }))).toBe("FORBIDDEN");
    expect(await rowHashes(suite.db)).toEqual(before);
  });

  it("two owners demoting each other at once leave exactly one owner", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "owners");
    await suite.db.membership.update({
      where: { workspaceId_userId: { workspaceId: world.workspaceId, userId: world.member.id } },
      data: { role: "owner" },
    });
    const [first, second] = await Promise.all([
      callerAs(suite.api, { cookie: world.owner.cookie }),
      callerAs(suite.api, { cookie: world.member.cookie }),
    ]);
    const results = await Promise.all([
      codeOf(
        first.members.setRole({
          workspaceId: world.workspaceId,
          userId: world.member.id,
          role: "member",
        }),
      ),
      codeOf(
        second.members.setRole({
          workspaceId: world.workspaceId,
          userId: world.owner.id,
          role: "member",
        }),
      ),
    ]);
    // The loser either saw its own demotion (FORBIDDEN) or the last owner (PRECONDITION_FAILED).
    expect(results.filter((r) => r === "answered")).toHaveLength(1);
    expect(results.filter((r) => r === "FORBIDDEN" || r === "PRECONDITION_FAILED")).toHaveLength(1);
    expect(
      await suite.db.membership.count({ where: { workspaceId: world.workspaceId, role: "owner" } }),
    ).toBe(1);
  });

  it("the last owner cannot step down", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "last");
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    expect(
      await codeOf(
        owner.members.setRole({
          workspaceId: world.workspaceId,
          userId: world.owner.id,
          role: "admin",
        }),
      ),
    ).toBe("PRECONDITION_FAILED");
  });
});

describe("invitations", () => {
  it("are one-time: of many people accepting one link at once, exactly one joins", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "race");
    const people = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createPerson(suite.api, suite.db, `racer${String(i)}`)),
    );
    const callers = await Promise.all(people.map((p) => callerAs(suite.api, { cookie: p.cookie })));
    const results = await Promise.all(
      callers.map((caller) => codeOf(caller.invitations.accept({ token: world.invitationToken }))),
    );
    expect(results.filter((r) => r === "answered")).toHaveLength(1);
    expect(results.filter((r) => r === "NOT_FOUND")).toHaveLength(5);
    const joined = await suite.db.membership.count({
      where: { workspaceId: world.workspaceId, userId: { in: people.map((p) => p.id) } },
    });
    expect(joined).toBe(1);
  });

  it("stop working when revoked or expired, and an existing member cannot use one", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "inv");
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    const newcomer = await callerAs(suite.api, {
      cookie: (await createPerson(suite.api, suite.db, "late")).cookie,
    });
    const revoked = await owner.invitations.create({
      workspaceId: world.workspaceId,
      role: "member",
    });
    await owner.invitations.revoke({ workspaceId: world.workspaceId, invitationId: revoked.id });
    expect(
      await codeOf(newcomer.invitations.accept({ token: revoked.url.split("/invite/")[1] ?? "" })),
    ).toBe("NOT_FOUND");
    const member = await callerAs(suite.api, { cookie: world.member.cookie });
    expect(await codeOf(member.invitations.accept({ token: world.invitationToken }))).toBe(
      "CONFLICT",
    );
    // The refused acceptance left the link usable for someone else.
    expect(await codeOf(newcomer.invitations.accept({ token: world.invitationToken }))).toBe(
      "answered",
    );
    const short = await owner.invitations.create({
      workspaceId: world.workspaceId,
      role: "member",
      expiresInHours: 1,
    });
    await suite.db.invitation.update({
      where: { id: short.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(
      await codeOf(newcomer.invitations.preview({ token: short.url.split("/invite/")[1] ?? "" })),
    ).toBe("NOT_FOUND");
  });

  it("keep only the link's hash, and show the link once", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "hash");
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    const created = await owner.invitations.create({
      workspaceId: world.workspaceId,
      role: "admin",
    });
    const token = created.url.split("/invite/")[1] ?? "";
    expect(created.url).toBe(`http://127.0.0.1:3000/invite/${token}`);
    const listed = JSON.stringify(await owner.invitations.list({ workspaceId: world.workspaceId }));
    const row = await suite.db.invitation.findUniqueOrThrow({ where: { id: created.id } });
    expect(listed).not.toContain(token);
    expect(JSON.stringify(row)).not.toContain(token);
  });
});

describe("bad input", () => {
  it("names the field, answers BAD_REQUEST and writes nothing", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "bad");
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    const cases: [string, () => Promise<unknown>, string][] = [
      [
        "role",
        () =>
          owner.members.setRole({
            workspaceId: world.workspaceId,
            userId: world.member.id,
            role: "root" as "admin",
          }),
        "role",
      ],
      [
        "overlong name",
        () => owner.tokens.create({ workspaceId: world.workspaceId, name: "x".repeat(101) }),
        "name",
      ],
      [
        "malformed id",
        () => owner.sessions.get({ workspaceId: world.workspaceId, sessionId: "not-a-uuid" }),
        "sessionId",
      ],
      ["malformed workspace", () => owner.sessions.list({ workspaceId: "42" }), "workspaceId"],
      ["bad slug", () => owner.workspaces.create({ slug: "Has Spaces", name: "x" }), "slug"],
      [
        "lifetime",
        () =>
          owner.tokens.create({ workspaceId: world.workspaceId, name: "t", expiresInDays: 9999 }),
        "expiresInDays",
      ],
      [
        "unknown token role",
        () =>
          owner.tokens.create({
            workspaceId: world.workspaceId,
            name: "t",
            role: "god" as "admin",
          }),
        "role",
      ],
    ];
    for (const [label, run, field] of cases) {
      const before = await rowHashes(suite.db);
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, label).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code, label).toBe("BAD_REQUEST");
      expect((error as TRPCError).message, label).toContain(`"${field}"`);
      expect(await rowHashes(suite.db), label).toEqual(before);
    }
  });

  it("refuses a malformed email at sign-up with a message naming it", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "email");
    const response = await suite.api.handleAuth(
      new Request("http://127.0.0.1:3000/api/auth/sign-up/email", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "http://127.0.0.1:3000",
          "x-berth-invitation": world.invitationToken,
        },
        body: JSON.stringify({
          email: "not-an-email",
          name: "x",
          password: "long-enough-password",
        }),
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/email/i);
    expect(await suite.db.user.count({ where: { email: "not-an-email" } })).toBe(0);
  });
});
