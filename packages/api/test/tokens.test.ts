import { ManualClock } from "@berth/sandbox/testing";
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { codeOf, codeWithin, useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { rowHashes, seedWorkspace, type SeededWorkspace } from "./support/world.ts";

const clock = new ManualClock(new Date("2030-01-01T00:00:00.000Z"));
const suite = useApiSuite({ clock });
let world: SeededWorkspace;
let other: SeededWorkspace;

beforeAll(async () => {
  [world, other] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "tok"),
    seedWorkspace(suite.api, suite.db, "other"),
  ]);
}, 60_000);

async function newToken(input: {
  cookie: string;
  role?: "member" | "admin" | "owner";
  expiresInDays?: number | null;
}) {
  const owner = await callerAs(suite.api, { cookie: input.cookie });
  return owner.tokens.create({
    workspaceId: world.workspaceId,
    name: "script",
    role: input.role ?? "member",
    ...(input.expiresInDays === undefined ? {} : { expiresInDays: input.expiresInDays }),
  });
}

describe("API tokens", () => {
  it("act in their one workspace with their role, and record when they were last used", async () => {
    const created = await newToken({ cookie: world.owner.cookie, role: "admin" });
    const asToken = await callerAs(suite.api, { token: created.token });
    const me = await asToken.me.get();
    expect(me.via).toBe("token");
    expect(me.workspaces).toEqual([
      expect.objectContaining({ id: world.workspaceId, role: "admin" }),
    ]);
    const row = await suite.db.apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.lastUsedAt?.toISOString()).toBe((await clock.now()).toISOString());
  });

  it("are refused on the very next call after revocation", async () => {
    const created = await newToken({ cookie: world.member.cookie });
    expect(
      await codeOf(
        (await callerAs(suite.api, { token: created.token })).sessions.list({
          workspaceId: world.workspaceId,
        }),
      ),
    ).toBe("answered");
    await (
      await callerAs(suite.api, { cookie: world.member.cookie })
    ).tokens.revoke({
      workspaceId: world.workspaceId,
      tokenId: created.id,
    });
    expect(await codeOf(callerAs(suite.api, { token: created.token }))).toBe("UNAUTHORIZED");
  });

  it("are refused once expired, by the injected clock", async () => {
    const created = await newToken({ cookie: world.member.cookie, expiresInDays: 1 });
    expect(await codeOf(callerAs(suite.api, { token: created.token }))).toBe("answered");
    clock.advance(86_400_000);
    expect(await codeOf(callerAs(suite.api, { token: created.token }))).toBe("UNAUTHORIZED");
  });

  it("are refused when unknown", async () => {
    expect(await codeOf(callerAs(suite.api, { token: "berth_tok_not-a-real-token" }))).toBe(
      "UNAUTHORIZED",
    );
  });

  it("never carry more than their creator's role: a member cannot mint an admin token", async () => {
    const before = await rowHashes(suite.db);
    expect(await codeOf(newToken({ cookie: world.member.cookie, role: "admin" }))).toBe(
      "FORBIDDEN",
    );
    expect(await rowHashes(suite.db)).toEqual(before);
  });

  it("cannot create tokens, so none outlives its own expiry or revocation; nothing is written", async () => {
    const parent = await newToken({ cookie: world.owner.cookie, role: "admin", expiresInDays: 1 });
    const asToken = await callerAs(suite.api, { token: parent.token });
    const before = await rowHashes(suite.db);
    const refused = await asToken.tokens
      .create({ workspaceId: world.workspaceId, name: "forever", expiresInDays: null })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe("FORBIDDEN");
    expect((refused as TRPCError).message).toMatch(/^API tokens cannot create tokens; sign in/);
    expect(await rowHashes(suite.db)).toEqual(before);
  });

  it("may revoke, which only takes power away: a token retires itself", async () => {
    const created = await newToken({ cookie: world.member.cookie });
    const asToken = await callerAs(suite.api, { token: created.token });
    await asToken.tokens.revoke({ workspaceId: world.workspaceId, tokenId: created.id });
    expect(await codeOf(callerAs(suite.api, { token: created.token }))).toBe("UNAUTHORIZED");
  });

  it("act with their user's current role when it drops below theirs", async () => {
    const created = await newToken({ cookie: world.owner.cookie, role: "admin" });
    const list = () =>
      callerAs(suite.api, { token: created.token }).then((c) =>
        c.audit.list({ workspaceId: world.workspaceId }),
      );
    expect(await codeOf(list())).toBe("answered");
    await suite.db.membership.update({
      where: { workspaceId_userId: { workspaceId: world.workspaceId, userId: world.owner.id } },
      data: { role: "member" },
    });
    try {
      // Changed behind the API's back, as another process would: it hears of it by NOTIFY.
      expect(await codeWithin(list, "FORBIDDEN")).toBe("FORBIDDEN");
    } finally {
      await suite.db.membership.update({
        where: { workspaceId_userId: { workspaceId: world.workspaceId, userId: world.owner.id } },
        data: { role: "owner" },
      });
    }
  });

  it("stop when their user leaves the workspace", async () => {
    const created = await newToken({ cookie: world.spare.cookie });
    await (
      await callerAs(suite.api, { cookie: world.owner.cookie })
    ).members.remove({
      workspaceId: world.workspaceId,
      userId: world.spare.id,
    });
    expect(await codeOf(callerAs(suite.api, { token: created.token }))).toBe("UNAUTHORIZED");
  });

  it("reach no other workspace, even one their user owns", async () => {
    await suite.db.membership.create({
      data: { workspaceId: other.workspaceId, userId: world.owner.id, role: "owner" },
    });
    const created = await newToken({ cookie: world.owner.cookie, role: "owner" });
    const asToken = await callerAs(suite.api, { token: created.token });
    expect(await codeOf(asToken.sessions.list({ workspaceId: other.workspaceId }))).toBe(
      "NOT_FOUND",
    );
    expect((await asToken.me.get()).workspaces.map((w) => w.id)).toEqual([world.workspaceId]);
  });

  it("are shown once: never in a list, the audit log, a table or a log line afterwards", async () => {
    const written: string[] = [];
    const capture = (stream: NodeJS.WriteStream) => {
      const original = stream.write.bind(stream);
      stream.write = (chunk: string | Uint8Array, ...rest: never[]) => {
        written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
        return original(chunk, ...rest);
      };
      return () => {
        stream.write = original;
      };
    };
    const restore = [capture(process.stdout), capture(process.stderr)];
    try {
      const created = await newToken({ cookie: world.owner.cookie });
      expect(created.token).toMatch(/^berth_tok_[A-Za-z0-9_-]{43}$/);
      const asOwner = await callerAs(suite.api, { cookie: world.owner.cookie });
      await (
        await callerAs(suite.api, { token: created.token })
      ).sessions.list({ workspaceId: world.workspaceId });
      await asOwner.tokens.revoke({ workspaceId: world.workspaceId, tokenId: created.id });
      await codeOf(callerAs(suite.api, { token: created.token }));
      const answers = JSON.stringify(
        [
          await asOwner.tokens.list({ workspaceId: world.workspaceId }),
          await asOwner.audit.list({ workspaceId: world.workspaceId }),
        ],
        (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value),
      );
      expect(answers).toContain(created.id);
      const dump = await suite.db.$queryRaw<{ dump: string }[]>`
        SELECT string_agg(t::text, ' ') AS dump FROM (
          SELECT row_to_json(a)::text AS t FROM api_tokens a
          UNION ALL SELECT row_to_json(e)::text FROM audit_events e) rows`;
      for (const place of [answers, dump[0]?.dump ?? "", written.join("")]) {
        expect(place).not.toContain(created.token);
        expect(place).not.toContain(created.token.slice("berth_tok_".length));
      }
    } finally {
      for (const undo of restore) undo();
    }
  });
});
