import { describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { createPerson } from "./support/world.ts";

const suite = useApiSuite();

describe("session cookies", () => {
  it("sign no one in from the session table alone: the cookie must carry Berth's signature", async () => {
    const person = await createPerson(suite.api, suite.db, "signed");
    const row = await suite.db.authSession.findFirstOrThrow({ where: { userId: person.id } });
    const [name = "", value = ""] = person.cookie.split("=");
    expect(decodeURIComponent(value).startsWith(`${row.token}.`)).toBe(true);
    // What someone who read the table could present: the bare token, or one signed with a guess.
    for (const forged of [row.token, `${row.token}.${"A".repeat(43)}=`]) {
      const caller = callerAs(suite.api, { cookie: `${name}=${encodeURIComponent(forged)}` });
      expect(await codeOf(caller.then((c) => c.me.get()))).toBe("UNAUTHORIZED");
    }
    expect(await codeOf((await callerAs(suite.api, { cookie: person.cookie })).me.get())).toBe(
      "answered",
    );
  });
});
