import { describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { invitationHeader } from "../src/index.ts";
import {
  authRequest,
  callerAs,
  createTestApi,
  freshAddress,
  sessionCookie,
} from "./support/testApi.ts";
import { createPerson, rowHashes, seedWorkspace, type Person } from "./support/world.ts";

const suite = useApiSuite();

describe("sign-in", () => {
  it("stores an argon2id hash, and never shows it: not in sign-in, session or API answers", async () => {
    const person = await createPerson(suite.api, suite.db, "hash");
    const account = await suite.db.authAccount.findFirstOrThrow({ where: { userId: person.id } });
    expect(account.password).toMatch(/^\$argon2id\$/);
    expect(account.password).not.toContain(person.password);

    const signInBody = await (
      await authRequest(suite.api, {
        path: "/sign-in/email",
        body: { email: person.email, password: person.password },
      })
    ).text();
    const sessionBody = await (
      await suite.api.handleAuth(
        new Request("http://127.0.0.1:3000/api/auth/get-session", {
          headers: { cookie: person.cookie },
        }),
      )
    ).text();
    const me = JSON.stringify(
      await (await callerAs(suite.api, { cookie: person.cookie })).me.get(),
    );
    for (const answer of [signInBody, sessionBody, me]) {
      expect(answer).toContain(person.email);
      expect(answer).not.toContain("$argon2");
      expect(answer).not.toContain(person.password);
    }
  });

  it("sets an HttpOnly, SameSite=Lax cookie, Secure only when Berth is served over https", async () => {
    const person = await createPerson(suite.api, suite.db, "cookie");
    const plain = await authRequest(suite.api, {
      path: "/sign-in/email",
      body: { email: person.email, password: person.password },
    });
    const plainCookie = plain.headers
      .getSetCookie()
      .find((c) => c.startsWith("berth.session_token="));
    expect(plainCookie).toMatch(/HttpOnly/i);
    expect(plainCookie).toMatch(/SameSite=Lax/i);
    expect(plainCookie).not.toMatch(/Secure/i);

    const httpsApi = createTestApi(suite.databaseUrl, {
      env: { BERTH_PUBLIC_URL: "https://berth.example.test" },
    });
    try {
      const secure = await httpsApi.handleAuth(
        new Request("https://berth.example.test/api/auth/sign-in/email", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: "https://berth.example.test",
            "x-forwarded-for": freshAddress(),
          },
          body: JSON.stringify({ email: person.email, password: person.password }),
        }),
      );
      expect(secure.status).toBe(200);
      const secureCookie = secure.headers
        .getSetCookie()
        .find((c) => c.includes("berth.session_token="));
      expect(secureCookie).toMatch(/; Secure/i);
      expect(secureCookie).toMatch(/HttpOnly/i);
    } finally {
      await httpsApi.close();
    }
  });

  it("issues a new session id at sign-in even when the browser presents one (no fixation)", async () => {
    const person = await createPerson(suite.api, suite.db, "fixation");
    const again = await authRequest(suite.api, {
      path: "/sign-in/email",
      body: { email: person.email, password: person.password },
      headers: { cookie: person.cookie },
    });
    const fresh = sessionCookie(again);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(person.cookie);
    const tokens = await suite.db.authSession.findMany({
      where: { userId: person.id },
      select: { token: true },
    });
    expect(new Set(tokens.map((t) => t.token)).size).toBe(tokens.length);
    expect(tokens.length).toBe(2);
  });

  it("signs out: the cookie stops resolving at once", async () => {
    const person = await createPerson(suite.api, suite.db, "signout");
    expect((await (await callerAs(suite.api, { cookie: person.cookie })).me.get()).user.email).toBe(
      person.email,
    );
    const out = await authRequest(suite.api, {
      path: "/sign-out",
      body: {},
      headers: { cookie: person.cookie },
    });
    expect(out.status).toBe(200);
    expect(await codeOf((await callerAs(suite.api, { cookie: person.cookie })).me.get())).toBe(
      "UNAUTHORIZED",
    );
  });

  it("refuses a wrong password with 401 and the same message as an unknown email", async () => {
    const person = await createPerson(suite.api, suite.db, "wrong");
    const wrong = await authRequest(suite.api, {
      path: "/sign-in/email",
      body: { email: person.email, password: "not-the-password" },
    });
    const unknown = await authRequest(suite.api, {
      path: "/sign-in/email",
      body: { email: "nobody@example.test", password: "not-the-password" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(((await wrong.json()) as { message: string }).message).toBe(
      ((await unknown.json()) as { message: string }).message,
    );
  });
});

describe("sign-in throttling", () => {
  async function attempt(person: Person, password: string, address: string): Promise<number> {
    const response = await authRequest(suite.api, {
      path: "/sign-in/email",
      body: { email: person.email, password },
      headers: { "x-forwarded-for": address },
    });
    return response.status;
  }

  it("refuses a sixth attempt from one address within a minute, even with the right password", async () => {
    const [first, second] = await Promise.all([
      createPerson(suite.api, suite.db, "t1"),
      createPerson(suite.api, suite.db, "t2"),
    ]);
    const address = freshAddress();
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(await attempt(i % 2 === 0 ? first : second, "wrong-password", address));
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    expect(await attempt(first, first.password, address)).toBe(429);
    // Another address is not affected.
    expect(await attempt(first, first.password, freshAddress())).toBe(200);
  });

  it("refuses attempts on one account beyond the limit, whatever address each claims", async () => {
    const person = await createPerson(suite.api, suite.db, "rotating");
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push(await attempt(person, "wrong-password", freshAddress()));
    // createPerson's own sign-in was the first of five.
    expect(statuses).toEqual([401, 401, 401, 401]);
    expect(await attempt(person, person.password, freshAddress())).toBe(429);
    // The counter names the account by hash only.
    const keys = await suite.db.authRateLimit.findMany({ select: { key: true } });
    expect(keys.map((k) => k.key).join(" ")).not.toContain(person.email);
  });

  it("counts concurrent attempts from many connections exactly", async () => {
    const person = await createPerson(suite.api, suite.db, "burst");
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => attempt(person, "wrong-password", freshAddress())),
    );
    // One attempt (createPerson's) was already counted: four more fail on the password, the rest on the limit.
    expect(statuses.filter((s) => s === 401)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8);
  });
});

describe("sign-up", () => {
  it("needs a pending invitation: without one it is refused and writes nothing", async () => {
    const before = await rowHashes(suite.db);
    const response = await authRequest(suite.api, {
      path: "/sign-up/email",
      body: { email: "newcomer@example.test", name: "New", password: "long-enough-password" },
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toMatch(/invitation/);
    const after = await rowHashes(suite.db);
    // Only the per-address throttling counter may move.
    expect({ ...after, auth_rate_limits: "" }).toEqual({ ...before, auth_rate_limits: "" });
  });

  it("with an invitation link: creates the account, which then joins with the invited role", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "signup");
    const response = await authRequest(suite.api, {
      path: "/sign-up/email",
      body: { email: "invited@example.test", name: "Invited", password: "long-enough-password" },
      headers: { [invitationHeader]: world.invitationToken },
    });
    expect(response.status).toBe(200);
    const cookie = sessionCookie(response);
    expect(cookie).toBeDefined();
    const invited = await callerAs(suite.api, { cookie: cookie ?? "" });
    expect(await invited.invitations.accept({ token: world.invitationToken })).toEqual({
      workspaceId: world.workspaceId,
      role: "member",
    });
    const me = await invited.me.get();
    expect(me.workspaces).toEqual([
      expect.objectContaining({ id: world.workspaceId, role: "member" }),
    ]);
  });
});

describe("cross-site requests", () => {
  it("refuses a cookie-authenticated mutation without Berth's origin, writing nothing", async () => {
    const person = await createPerson(suite.api, suite.db, "csrf");
    for (const origin of [undefined, "https://evil.example"]) {
      const headers = new Headers({ cookie: person.cookie });
      if (origin !== undefined) headers.set("origin", origin);
      const before = await rowHashes(suite.db);
      const caller = await callerAs(suite.api, headers);
      expect(await codeOf(caller.workspaces.create({ slug: "csrf-target", name: "x" }))).toBe(
        "FORBIDDEN",
      );
      expect(await rowHashes(suite.db)).toEqual(before);
      // Reading is harmless and still works: the cookie is valid.
      expect((await caller.me.get()).user.email).toBe(person.email);
    }
  });

  it("accepts the same mutation from any loopback name of the one-machine default", async () => {
    const person = await createPerson(suite.api, suite.db, "loopback");
    const caller = await callerAs(
      suite.api,
      new Headers({ cookie: person.cookie, origin: "http://localhost:3000" }),
    );
    await expect(
      caller.workspaces.create({ slug: "loopback-ok", name: "ok" }),
    ).resolves.toMatchObject({
      slug: "loopback-ok",
    });
  });
});
