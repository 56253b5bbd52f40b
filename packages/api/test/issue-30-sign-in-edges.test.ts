import { ManualClock } from "@berth/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { throttleSignIn } from "../src/auth/signInThrottle.ts";
import { invitationHeader, serveApi, type BerthApi, type ServedApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { createTestApi, freshAddress, publicUrl, sessionCookie } from "./support/testApi.ts";
import { createPerson, seedWorkspace, type Person } from "./support/world.ts";

// Issue 30, sign-in edges: whose address a sign-in is counted under, what one address can do
// to an account, and what the sign-in answer carries. Through the real HTTP edge (serveApi).

const suite = useApiSuite();

/** The suite's API behind an untrusted peer: what serveApi's socket says is the client. */
let direct: ServedApi;
/** A second API on the same database that trusts its loopback peer as a proxy. */
let proxiedApi: BerthApi;
let proxied: ServedApi;

beforeAll(async () => {
  direct = await serveApi(suite.api);
  proxiedApi = createTestApi(suite.databaseUrl, { env: { BERTH_TRUSTED_PROXIES: "127.0.0.1" } });
  proxied = await serveApi(proxiedApi);
});
afterAll(async () => {
  await direct.close();
  await proxied.close();
  await proxiedApi.close();
});

/** A sign-in over HTTP as a browser on Berth's page sends it. */
function signInOver(
  served: ServedApi,
  credentials: { email: string; password: string },
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${served.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: publicUrl, ...headers },
    body: JSON.stringify(credentials),
  });
}

async function statusOf(response: Promise<Response>): Promise<number> {
  const answered = await response;
  await answered.body?.cancel();
  return answered.status;
}

const wrong = (person: Person) => ({ email: person.email, password: "wrong-password" });

describe("the client address a sign-in is counted under", () => {
  it("is the socket's from an untrusted peer: rotating X-Forwarded-For does not reset the per-address limit", async () => {
    const people = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => createPerson(suite.api, suite.db, `rotate-${String(i)}`)),
    );
    const statuses = [];
    // A different account each time, so only the per-address limit can refuse.
    for (const person of people.slice(0, 5))
      statuses.push(
        await statusOf(signInOver(direct, wrong(person), { "x-forwarded-for": freshAddress() })),
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const last = people[5] as Person;
    expect(
      await statusOf(
        signInOver(
          direct,
          { email: last.email, password: last.password },
          {
            "x-forwarded-for": freshAddress(),
            // Nor can a client name the header Berth itself sets.
            "x-berth-client-address": freshAddress(),
          },
        ),
      ),
    ).toBe(429);
  });

  it("behind a trusted proxy is the first untrusted X-Forwarded-For hop from the right", async () => {
    const people = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => createPerson(suite.api, suite.db, `proxied-${String(i)}`)),
    );
    const client = freshAddress();
    const statuses = [];
    for (const person of people.slice(0, 5))
      statuses.push(
        await statusOf(
          signInOver(proxied, wrong(person), {
            // What the client wrote (left) changes each time; what the proxy appended does not.
            "x-forwarded-for": `${freshAddress()}, ${client}`,
          }),
        ),
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const last = people[5] as Person;
    const right = { email: last.email, password: last.password };
    expect(
      await statusOf(
        signInOver(proxied, right, { "x-forwarded-for": `${freshAddress()}, ${client}` }),
      ),
    ).toBe(429);
    // Another client behind the same proxy is counted apart, and signs in.
    expect(await statusOf(signInOver(proxied, right, { "x-forwarded-for": freshAddress() }))).toBe(
      200,
    );
  });
});

describe("per (account, address) counting", () => {
  it("lets the owner sign in from a second address during a flood from the first", async () => {
    const owner = await createPerson(suite.api, suite.db, "flooded");
    const attacker = freshAddress();
    const flood = [];
    for (let i = 0; i < 8; i++)
      flood.push(
        await statusOf(signInOver(proxied, wrong(owner), { "x-forwarded-for": attacker })),
      );
    expect(flood).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);

    const home = await signInOver(
      proxied,
      { email: owner.email, password: owner.password },
      { "x-forwarded-for": freshAddress() },
    );
    expect(home.status).toBe(200);
    const cookie = sessionCookie(home) ?? "";
    const me = await fetch(`${proxied.url}/api/trpc/me.get`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.text()).toContain(owner.email);
    // The flood goes on being refused, even with the right password.
    expect(
      await statusOf(
        signInOver(
          proxied,
          { email: owner.email, password: owner.password },
          { "x-forwarded-for": attacker },
        ),
      ),
    ).toBe(429);
  });

  it("counts concurrent attempts exactly, and only those an (account, address) let through toward the account", async () => {
    const limits = {
      perAccountAndAddress: { max: 5, windowSeconds: 60 },
      perAccount: { max: 400, windowSeconds: 3600 },
    };
    const email = `burst-${freshAddress()}@example.test`;
    const address = freshAddress();
    const nowMs = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () =>
        throttleSignIn(suite.db, { email, address, ...limits, nowMs }),
      ),
    );
    expect(outcomes.filter((o) => o === null)).toHaveLength(5);
    expect(outcomes.filter((o) => o === "account_and_address")).toHaveLength(7);
    const counters = await suite.db.authRateLimit.findMany({
      where: { key: { startsWith: "account:" }, lastRequest: nowMs },
      select: { key: true, count: true },
    });
    expect(counters.map((c) => c.count).sort((a, b) => a - b)).toEqual([5, 12]);
    // The counters name the account by hash only.
    expect(counters.map((c) => c.key).join(" ")).not.toContain(email);
  });
});

describe("the per-account limit", () => {
  it("refuses an account tried from many addresses, for its hour, whatever the password", async () => {
    // Started 20 minutes back, as if the attack had begun then (better-auth's own pruning reads
    // the wall clock: the counters must outlive its longest other window, 10 minutes).
    const clock = new ManualClock(new Date(Date.now() - 20 * 60_000));
    const api = createTestApi(suite.databaseUrl, {
      clock,
      env: {
        BERTH_TRUSTED_PROXIES: "127.0.0.1",
        BERTH_SIGNIN_ATTEMPTS_PER_MINUTE: "1",
        BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR: "62",
      },
    });
    const served = await serveApi(api);
    try {
      // Made through this API, so their own first sign-ins are counted in its time.
      const [owner, bystander] = await Promise.all([
        createPerson(api, suite.db, "spread"),
        createPerson(api, suite.db, "bystander"),
      ]);
      const right = { email: owner.email, password: owner.password };
      // With the owner's own sign-in, 62 attempts: the hour's allowance, one per address.
      const spread = await Promise.all(
        Array.from({ length: 61 }, () =>
          statusOf(signInOver(served, wrong(owner), { "x-forwarded-for": freshAddress() })),
        ),
      );
      expect(spread.filter((s) => s === 401)).toHaveLength(61);

      // A window of better-auth's own restarts (which prunes old rows): the count survives it.
      const restarted = freshAddress();
      await suite.db.authRateLimit.create({
        data: { key: `${restarted}|/sign-in/email`, count: 1, lastRequest: Date.now() - 120_000 },
      });
      expect(
        await statusOf(signInOver(served, wrong(bystander), { "x-forwarded-for": restarted })),
      ).toBe(401);

      const refused = await signInOver(served, right, { "x-forwarded-for": freshAddress() });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { message: string }).message).toMatch(/many addresses/);
      // Another account from the same addresses is not affected.
      expect(
        await statusOf(
          signInOver(
            served,
            { email: bystander.email, password: bystander.password },
            { "x-forwarded-for": freshAddress() },
          ),
        ),
      ).toBe(200);

      clock.advance(61 * 60_000);
      expect(await statusOf(signInOver(served, right, { "x-forwarded-for": freshAddress() }))).toBe(
        200,
      );
    } finally {
      await served.close();
      await api.close();
    }
  });

  it("must be above what one address can try in an hour: Berth refuses to start otherwise", () => {
    expect(() =>
      createTestApi(suite.databaseUrl, {
        env: {
          BERTH_SIGNIN_ATTEMPTS_PER_MINUTE: "5",
          BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR: "100",
        },
      }),
    ).toThrow(
      /BERTH_SIGNIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR[\s\S]*61 × BERTH_SIGNIN_ATTEMPTS_PER_MINUTE = 305/,
    );
  });
});

describe("the sign-in answer", () => {
  it("carries no session token in its JSON (sign-in and sign-up); the HttpOnly cookie signs in", async () => {
    const person = await createPerson(suite.api, suite.db, "tokenless");
    const world = await seedWorkspace(suite.api, suite.db, "tokenless");
    const signIn = await signInOver(
      proxied,
      { email: person.email, password: person.password },
      { "x-forwarded-for": freshAddress() },
    );
    const signUp = await fetch(`${proxied.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: publicUrl,
        "x-forwarded-for": freshAddress(),
        [invitationHeader]: world.invitationToken,
      },
      body: JSON.stringify({
        email: "tokenless-new@example.test",
        name: "New",
        password: "long-enough-password",
      }),
    });
    for (const [answer, email] of [
      [signIn, person.email],
      [signUp, "tokenless-new@example.test"],
    ] as const) {
      expect(answer.status).toBe(200);
      const text = await answer.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(body).not.toHaveProperty("token");
      expect(body).toMatchObject({ user: { email } });
      const cookie = sessionCookie(answer) ?? "";
      expect(answer.headers.getSetCookie().join("\n")).toMatch(/HttpOnly/i);
      // Neither the cookie's token nor the stored one appears anywhere in the body.
      const token = decodeURIComponent(cookie.split("=")[1] ?? "").split(".")[0] ?? "";
      expect(token.length).toBeGreaterThan(16);
      expect(text).not.toContain(token);
      const me = await fetch(`${proxied.url}/api/trpc/me.get`, { headers: { cookie } });
      expect(await me.text()).toContain(email);
    }
  });
});
