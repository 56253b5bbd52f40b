import { describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { clientAddressHeader } from "../src/http/clientAddress.ts";
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

/** Every table but the per-address throttling counter, which any request may move. */
async function rowsBesidesThrottling() {
  return { ...(await rowHashes(suite.db)), auth_rate_limits: "" };
}

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
            [clientAddressHeader]: freshAddress(),
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

  it("refuses sign-out and sign-up sent from another site's page, changing nothing", async () => {
    const person = await createPerson(suite.api, suite.db, "csrf");
    const before = await rowsBesidesThrottling();
    const foreign = { origin: "https://evil.example" };
    const out = await authRequest(suite.api, {
      path: "/sign-out",
      body: {},
      headers: { cookie: person.cookie, ...foreign },
    });
    const up = await authRequest(suite.api, {
      path: "/sign-up/email",
      body: { email: "csrf-new@example.test", password: "a-long-password-1", name: "New" },
      headers: { cookie: person.cookie, ...foreign },
    });
    expect([out.status, up.status]).toEqual([403, 403]);
    expect(await rowsBesidesThrottling()).toEqual(before);
    expect((await (await callerAs(suite.api, { cookie: person.cookie })).me.get()).user.email).toBe(
      person.email,
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
      headers: { [clientAddressHeader]: address },
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

  it("counts an account's attempts per address: a minute's worth from two addresses locks no one out", async () => {
    const person = await createPerson(suite.api, suite.db, "two-addresses");
    const statuses = [];
    for (const address of [freshAddress(), freshAddress()])
      for (let i = 0; i < 5; i++) statuses.push(await attempt(person, "wrong-password", address));
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 401));
    expect(await attempt(person, person.password, freshAddress())).toBe(200);
    // The counters name the account by hash only.
    const keys = await suite.db.authRateLimit.findMany({ select: { key: true } });
    expect(keys.map((k) => k.key).join(" ")).not.toContain(person.email);
  });

  it("counts concurrent attempts from one address on one account exactly", async () => {
    const person = await createPerson(suite.api, suite.db, "burst");
    const address = freshAddress();
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => attempt(person, "wrong-password", address)),
    );
    // Five fail on the password, the rest on the limit.
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
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

describe("sign-up input", () => {
  it("names the field, answers 400 and writes nothing: bad emails, bad names, an image, unknown fields", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "bounds");
    const valid = {
      email: "bounded@example.test",
      name: "Bounded",
      password: "long-enough-password",
    };
    const cases: [string, Record<string, unknown>, string][] = [
      ["malformed email", { ...valid, email: "not-an-email" }, "email"],
      ["overlong email", { ...valid, email: `${"a".repeat(250)}@example.test` }, "email"],
      ["overlong name", { ...valid, name: "x".repeat(101) }, "name"],
      ["blank name", { ...valid, name: "   " }, "name"],
      ["short password", { ...valid, password: "short" }, "password"],
      ["an image", { ...valid, image: "https://tracker.example/pixel.png" }, "image"],
      ["an unknown field", { ...valid, role: "owner" }, "role"],
    ];
    for (const [label, body, field] of cases) {
      const before = await rowsBesidesThrottling();
      const response = await authRequest(suite.api, {
        path: "/sign-up/email",
        body,
        headers: { [invitationHeader]: world.invitationToken },
      });
      expect(response.status, label).toBe(400);
      const answer = (await response.json()) as { message: string; fields: string[] };
      expect(answer.message, label).toContain(`"${field}"`);
      expect(answer.fields, label).toEqual([field]);
      expect(await rowsBesidesThrottling(), label).toEqual(before);
    }
    // The bounds are the only refusal: the same body, valid, creates the account (name trimmed).
    const created = await authRequest(suite.api, {
      path: "/sign-up/email",
      body: { ...valid, name: "  Bounded  " },
      headers: { [invitationHeader]: world.invitationToken },
    });
    expect(created.status).toBe(200);
    const user = await suite.db.user.findUniqueOrThrow({ where: { email: valid.email } });
    expect(user.name).toBe("Bounded");
    expect(user.image).toBeNull();
  });

  it("a signed-in person cannot write an overlong name or an image afterwards either", async () => {
    const person = await createPerson(suite.api, suite.db, "profile");
    for (const [body, field] of [
      [{ name: "x".repeat(101) }, "name"],
      [{ image: "https://tracker.example/pixel.png" }, "image"],
    ] as const) {
      const before = await rowsBesidesThrottling();
      const response = await authRequest(suite.api, {
        path: "/update-user",
        body,
        headers: { cookie: person.cookie },
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toContain(`"${field}"`);
      expect(await rowsBesidesThrottling()).toEqual(before);
    }
  });
});

describe("one invitation, one account", () => {
  it("of concurrent sign-ups with one link exactly one succeeds; the rest are refused and write nothing", async () => {
    const world = await seedWorkspace(suite.api, suite.db, "race");
    const emails = Array.from({ length: 8 }, (_, i) => `racer-${String(i)}@example.test`);
    const before = await rowHashes(suite.db);
    const responses = await Promise.all(
      emails.map((email) =>
        authRequest(suite.api, {
          path: "/sign-up/email",
          body: { email, name: "Racer", password: "long-enough-password" },
          headers: { [invitationHeader]: world.invitationToken },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 403)).toHaveLength(emails.length - 1);
    for (const response of responses.filter((r) => r.status === 403))
      expect(((await response.json()) as { message: string }).message).toMatch(
        /invitation is unknown, used, revoked or expired/,
      );

    // One account, whose email the invitation now names; the losers wrote nothing.
    const winner = responses.findIndex((response) => response.status === 200);
    const users = await suite.db.user.findMany({
      where: { email: { in: emails } },
      select: { id: true, email: true },
    });
    expect(users.map((user) => user.email)).toEqual([emails[winner]]);
    const invitation = await suite.db.invitation.findFirstOrThrow({
      where: { workspaceId: world.workspaceId, signUpEmail: { not: null } },
      select: { signUpEmail: true, acceptedAt: true },
    });
    expect(invitation).toEqual({ signUpEmail: emails[winner], acceptedAt: null });
    const after = await rowHashes(suite.db);
    const written = ["users", "auth_accounts", "auth_sessions", "invitations", "auth_rate_limits"];
    for (const table of Object.keys(before).filter((name) => !written.includes(name)))
      expect(after[table], table).toBe(before[table]);
    expect(await suite.db.authAccount.count({ where: { user: { email: { in: emails } } } })).toBe(
      1,
    );
    expect(await suite.db.authSession.count({ where: { user: { email: { in: emails } } } })).toBe(
      1,
    );

    // A later sign-up with the link is refused too, and the link now joins that account only.
    const late = await authRequest(suite.api, {
      path: "/sign-up/email",
      body: { email: "late@example.test", name: "Late", password: "long-enough-password" },
      headers: { [invitationHeader]: world.invitationToken },
    });
    expect(late.status).toBe(403);
    const bystander = await createPerson(suite.api, suite.db, "bystander");
    const asBystander = await callerAs(suite.api, { cookie: bystander.cookie });
    expect(await codeOf(asBystander.invitations.accept({ token: world.invitationToken }))).toBe(
      "NOT_FOUND",
    );
    expect(
      await codeOf(
        (await callerAs(suite.api, "anonymous")).invitations.preview({
          token: world.invitationToken,
        }),
      ),
    ).toBe("NOT_FOUND");
    const winnerCookie = responses.map(sessionCookie).find((cookie) => cookie !== undefined);
    const asWinner = await callerAs(suite.api, { cookie: winnerCookie ?? "" });
    expect(await asWinner.invitations.preview({ token: world.invitationToken })).toMatchObject({
      role: "member",
    });
    expect(await asWinner.invitations.accept({ token: world.invitationToken })).toEqual({
      workspaceId: world.workspaceId,
      role: "member",
    });
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
