import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import type { ProcedureFixture } from "../src/fixtures.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { appRouter, appRouterFixtures } from "../src/root.ts";
import { callerAs, type Credential } from "./support/testApi.ts";
import {
  rowHashes,
  seedWorkspace,
  workspaceRowHashes,
  type SeededWorkspace,
} from "./support/world.ts";

// The isolation and role matrices, generated from the router itself: every procedure of
// appRouter is called with the valid input its router declares beside it.

const suite = useApiSuite();
let victim: SeededWorkspace;
let outsider: SeededWorkspace;

beforeAll(async () => {
  [victim, outsider] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "victim"),
    seedWorkspace(suite.api, suite.db, "outsider"),
  ]);
}, 60_000);

const procedurePaths = Object.keys(appRouter._def.procedures).sort();

/** The paths in the order the routers define them (create before revoke, preview before accept). */
const definitionOrder = Object.entries(appRouterFixtures).flatMap(([routerName, fixtures]) =>
  Object.keys(fixtures).map((name) => `${routerName}.${name}`),
);

function fixtureOf(path: string): ProcedureFixture | undefined {
  const [routerName, procedureName] = path.split(".");
  const fixtures = (
    appRouterFixtures as Record<string, Record<string, ProcedureFixture> | undefined>
  )[routerName ?? ""];
  return fixtures?.[procedureName ?? ""];
}

function requireFixture(path: string): ProcedureFixture {
  const fixture = fixtureOf(path);
  if (fixture === undefined) throw new Error(`${path} has no fixture beside its definition`);
  return fixture;
}

type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; code: string; message: string; berth: string | undefined };

/** Calls one procedure by path, with a context built from the credential's request headers. */
async function call(path: string, credential: Credential, input: unknown): Promise<Outcome> {
  try {
    const caller = (await callerAs(suite.api, credential)) as unknown as Record<
      string,
      Record<string, (input: unknown) => Promise<unknown>>
    >;
    const [routerName = "", procedureName = ""] = path.split(".");
    const procedure = caller[routerName]?.[procedureName];
    if (procedure === undefined) throw new Error(`no procedure ${path}`);
    const value = await procedure(input);
    // A subscription answers with a stream: its first event (or error) is the answer.
    if (isAsyncIterable(value)) {
      for await (const first of value) return { ok: true, value: first };
    }
    return { ok: true, value };
  } catch (error) {
    if (error instanceof TRPCError)
      return { ok: false, code: error.code, message: error.message, berth: berthCodeOf(error) };
    throw error;
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** The `data.berth.code` a mapped domain error carries to clients. */
function berthCodeOf(error: TRPCError): string | undefined {
  const cause = error.cause as { data?: { code?: unknown } } | undefined;
  return typeof cause?.data?.code === "string" ? cause.data.code : undefined;
}

/** Calls, and proves the call wrote nothing anywhere. */
async function callWritingNothing(path: string, credential: Credential, input: unknown) {
  await suite.api.settled();
  const before = await rowHashes(suite.db);
  const outcome = await call(path, credential, input);
  expect(await rowHashes(suite.db), `${path} wrote rows`).toEqual(before);
  return outcome;
}

/** An answer to an outsider names nothing of the victim's. */
function expectNoVictimIds(value: unknown): void {
  const answer = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "bigint" ? v.toString() : v,
  );
  for (const id of [
    victim.workspaceId,
    victim.sessionId,
    victim.owner.id,
    victim.member.id,
    victim.spare.id,
    victim.tokenId,
    victim.invitationId,
  ])
    expect(answer).not.toContain(id);
}

describe("the router's fixtures", () => {
  it("cover every procedure, and name no procedure that does not exist", () => {
    expect(procedurePaths.length).toBeGreaterThan(15);
    expect(procedurePaths.filter((path) => fixtureOf(path) === undefined)).toEqual([]);
    expect(definitionOrder.filter((path) => !procedurePaths.includes(path))).toEqual([]);
  });

  // The isolation rows below trust each fixture's scope: a label is not allowed to hide a
  // procedure that is handed one of the victim's ids from them.
  it("label tenant-scoped every procedure whose input holds one of the victim's ids", () => {
    const ids = new Set(Object.values(victim).filter((value) => typeof value === "string"));
    const mislabelled = procedurePaths.filter((path) => {
      const fixture = requireFixture(path);
      const input: unknown = fixture.input(victim);
      const values = typeof input === "object" && input !== null ? Object.values(input) : [input];
      return fixture.scope === "own" && values.some((value) => ids.has(value as string));
    });
    expect(mislabelled).toEqual([]);
  });
});

const tenantPaths = procedurePaths.filter((path) => fixtureOf(path)?.scope === "tenant");

describe("isolation: another workspace's owner, with a valid id of the victim's", () => {
  it.each(tenantPaths)("%s answers NOT_FOUND or FORBIDDEN and writes nothing", async (path) => {
    const input = requireFixture(path).input(victim);
    const credentials: Credential[] = [
      { cookie: outsider.owner.cookie },
      { token: outsider.adminToken },
    ];
    for (const credential of credentials) {
      const outcome = await callWritingNothing(path, credential, input);
      expect(outcome.ok ? "answered" : outcome.code).toMatch(/^(NOT_FOUND|FORBIDDEN)$/);
    }
  });

  it.each(tenantPaths)(
    "%s, given the outsider's own workspace and the victim's other ids, neither shows nor touches the victim's rows",
    async (path) => {
      const input = requireFixture(path).input({ ...victim, workspaceId: outsider.workspaceId });
      await suite.api.settled();
      const before = await workspaceRowHashes(suite.db, victim.workspaceId);
      const outcome = await call(path, { cookie: outsider.owner.cookie }, input);
      expect(
        await workspaceRowHashes(suite.db, victim.workspaceId),
        `${path} touched the victim's rows`,
      ).toEqual(before);
      if (!outcome.ok) expect(outcome.code).toMatch(/^(NOT_FOUND|FORBIDDEN)$/);
      else expectNoVictimIds(outcome.value);
    },
  );

  it.each(procedurePaths.filter((path) => fixtureOf(path)?.scope === "own"))(
    "%s (acts on the caller's own data) answers with none of the victim's ids",
    async (path) => {
      const outcome = await call(
        path,
        { cookie: outsider.owner.cookie },
        requireFixture(path).input(outsider),
      );
      expect(outcome.ok).toBe(true);
      const answer = JSON.stringify(outcome.ok ? outcome.value : null);
      for (const id of [
        victim.workspaceId,
        victim.sessionId,
        victim.owner.id,
        victim.member.id,
        victim.tokenId,
      ])
        expect(answer).not.toContain(id);
    },
  );
});

describe("roles", () => {
  const adminPaths = procedurePaths.filter((path) => fixtureOf(path)?.access === "admin");
  it.each(adminPaths)(
    "%s is refused to a member, by cookie and by token, writing nothing",
    async (path) => {
      const input = requireFixture(path).input(victim);
      for (const credential of [{ cookie: victim.member.cookie }, { token: victim.memberToken }]) {
        expect(await callWritingNothing(path, credential, input)).toMatchObject({
          ok: false,
          code: "FORBIDDEN",
        });
      }
    },
  );

  const signedInPaths = procedurePaths.filter((path) => {
    const access = fixtureOf(path)?.access;
    return access !== undefined && access !== "public";
  });
  it.each(signedInPaths)("%s is refused to an anonymous caller", async (path) => {
    const outcome = await callWritingNothing(path, "anonymous", requireFixture(path).input(victim));
    expect(outcome).toMatchObject({ ok: false, code: "UNAUTHORIZED" });
  });

  const personOnlyPaths = procedurePaths.filter((path) => {
    const fixture = fixtureOf(path);
    return fixture?.access === "person" || fixture?.refusesTokens === true;
  });
  it.each(personOnlyPaths)(
    "%s is refused to an API token (only a signed-in person may call it)",
    async (path) => {
      const outcome = await callWritingNothing(
        path,
        { token: victim.adminToken },
        requireFixture(path).input(victim),
      );
      expect(outcome).toMatchObject({ ok: false, code: "FORBIDDEN" });
    },
  );
});

describe("every fixture is a valid call for someone entitled to it", () => {
  // Last, because some of these change the world (a member removed, a token revoked). Without
  // this, a refusal above could come from a wrong id rather than from the scoping.
  it.each(definitionOrder)("%s succeeds for its rightful caller", async (path) => {
    const fixture = requireFixture(path);
    const credential: Credential =
      fixture.scope === "capability"
        ? { cookie: outsider.owner.cookie }
        : { cookie: victim.owner.cookie };
    const outcome = await call(path, credential, fixture.input(victim));
    if (fixture.rightfulAnswer !== undefined) {
      expect(outcome.ok ? "answered" : outcome.berth).toBe(fixture.rightfulAnswer);
      return;
    }
    expect(outcome.ok, outcome.ok ? "" : `${outcome.code}: ${outcome.message}`).toBe(true);
  });
});
