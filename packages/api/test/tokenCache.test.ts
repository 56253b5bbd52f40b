import { ManualClock } from "@berth/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BerthApi } from "../src/index.ts";
import { codeOf, codeWithin, useApiSuite } from "./support/apiSuite.ts";
import { credentialsListenerName } from "../src/auth/tokenCache.ts";
import { callerAs, createTestApi } from "./support/testApi.ts";
import { seedWorkspace, type SeededWorkspace } from "./support/world.ts";

// API tokens are cached by each API process while its LISTEN connection is up; these prove the
// cache is used and that every way a token can lose its power still reaches it.
const clock = new ManualClock(new Date("2030-01-01T00:00:00.000Z"));
const suite = useApiSuite({ clock });
let world: SeededWorkspace;
let replica: BerthApi;

beforeAll(async () => {
  world = await seedWorkspace(suite.api, suite.db, "cache");
  replica = createTestApi(suite.databaseUrl, { dataDir: suite.dataDir, clock });
}, 60_000);

afterAll(async () => {
  await replica.close();
});

async function newMemberToken(): Promise<{ id: string; token: string }> {
  const member = await callerAs(suite.api, { cookie: world.member.cookie });
  return member.tokens.create({ workspaceId: world.workspaceId, name: "cached", role: "member" });
}

/** One token call through `api`: "answered" or its refusal's code. */
function listWith(api: BerthApi, token: string): Promise<string> {
  return codeOf(listCall(api, token));
}

function listCall(api: BerthApi, token: string): Promise<unknown> {
  return callerAs(api, { token }).then((caller) =>
    caller.sessions.list({ workspaceId: world.workspaceId }),
  );
}

/** Uses the token through `api` until that API caches it (it trusts its cache once LISTEN is up). */
async function cachedIn(api: BerthApi, token: string): Promise<void> {
  expect(await listWith(api, token)).toBe("answered");
  await until(() => Promise.resolve(api.tokensTrusted()));
  expect(await listWith(api, token)).toBe("answered");
}

/** The backends of the APIs' credentials LISTEN connections. */
async function listenerPids(): Promise<number[]> {
  const rows = await suite.db.$queryRaw<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = ${credentialsListenerName}
     ORDER BY pid`;
  return rows.map((row) => row.pid);
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs `body` with the api_tokens trigger off: changes to tokens notify no one meanwhile. */
async function withoutNotices(body: () => Promise<void>): Promise<void> {
  await suite.db.$executeRaw`ALTER TABLE api_tokens DISABLE TRIGGER api_tokens_credentials_notify`;
  try {
    await body();
  } finally {
    await suite.db.$executeRaw`ALTER TABLE api_tokens ENABLE TRIGGER api_tokens_credentials_notify`;
  }
}

describe("the token cache", () => {
  it("answers a cached token without its lookup, and forgets it all when its LISTEN connection drops", async () => {
    const { id, token } = await newMemberToken();
    await cachedIn(suite.api, token);
    await withoutNotices(async () => {
      await suite.db.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
      // Nobody told it: the cached token is still answered.
      expect(await listWith(suite.api, token)).toBe("answered");
      const before = await listenerPids();
      for (const pid of before)
        await suite.db.$executeRaw`SELECT pg_terminate_backend(${pid}::int)`;
      // Back and listening: whatever it missed meanwhile, it no longer trusts what it had.
      await until(async () => {
        const now = await listenerPids();
        return (
          now.length > 0 && now.every((pid) => !before.includes(pid)) && suite.api.tokensTrusted()
        );
      });
      expect(await listWith(suite.api, token)).toBe("UNAUTHORIZED");
    });
  });

  it("the replica that revokes forgets before it answers, whether or not a NOTIFY comes", async () => {
    const { id, token } = await newMemberToken();
    await cachedIn(suite.api, token);
    await cachedIn(replica, token);
    await withoutNotices(async () => {
      const member = await callerAs(suite.api, { cookie: world.member.cookie });
      await member.tokens.revoke({ workspaceId: world.workspaceId, tokenId: id });
      expect(await listWith(suite.api, token)).toBe("UNAUTHORIZED");
      // The other replica hears of it only by NOTIFY, which this test withheld.
      expect(await listWith(replica, token)).toBe("answered");
    });
  });

  it("a token revoked through one replica is refused by the other once the NOTIFY lands", async () => {
    const { id, token } = await newMemberToken();
    await cachedIn(replica, token);
    const member = await callerAs(suite.api, { cookie: world.member.cookie });
    await member.tokens.revoke({ workspaceId: world.workspaceId, tokenId: id });
    // The revoking replica forgets before it answers: its very next call is refused.
    expect(await listWith(suite.api, token)).toBe("UNAUTHORIZED");
    expect(await codeWithin(() => listCall(replica, token), "UNAUTHORIZED")).toBe("UNAUTHORIZED");
  });

  it("a member removed through one replica loses their cached token on the other", async () => {
    const spare = await callerAs(suite.api, { cookie: world.spare.cookie });
    const { token } = await spare.tokens.create({
      workspaceId: world.workspaceId,
      name: "spare's",
      role: "member",
    });
    await cachedIn(replica, token);
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    await owner.members.remove({ workspaceId: world.workspaceId, userId: world.spare.id });
    expect(await codeWithin(() => listCall(replica, token), "UNAUTHORIZED")).toBe("UNAUTHORIZED");
  });

  it("an expired cached token is refused, and one cached a minute is looked up again", async () => {
    const member = await callerAs(suite.api, { cookie: world.member.cookie });
    const short = await member.tokens.create({
      workspaceId: world.workspaceId,
      name: "short",
      role: "member",
      expiresInDays: 1,
    });
    const long = await newMemberToken();
    await cachedIn(suite.api, short.token);
    await cachedIn(suite.api, long.token);
    const lastUse = async () =>
      (await suite.db.apiToken.findUniqueOrThrow({ where: { id: long.id } })).lastUsedAt;
    const firstUse = await lastUse();
    clock.advance(61_000);
    expect(await listWith(suite.api, long.token)).toBe("answered");
    // Looked up again, so its last use is written again.
    expect((await lastUse())?.getTime()).toBe(firstUse === null ? -1 : firstUse.getTime() + 61_000);
    clock.advance(86_400_000);
    expect(await listWith(suite.api, short.token)).toBe("UNAUTHORIZED");
  });
});
