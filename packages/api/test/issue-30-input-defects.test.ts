import { readdir } from "node:fs/promises";
import { NUL_REFUSAL } from "@berth/validators";
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApi, type ServedApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { httpClientAs, publicUrl, type Credential } from "./support/testApi.ts";
import { rowHashes, seedWorkspace, type SeededWorkspace } from "./support/world.ts";

// Issue 30, input defects, through the real HTTP API (tRPC, file transfers and sign-in served
// on a loopback port, as the dashboard serves them) over a real database and real local boxes.
// boxd's own second line is apps/boxd/test/issue-30-input-defects.test.ts.

const suite = useApiSuite();
let http: ServedApi;
let world: SeededWorkspace;

beforeAll(async () => {
  http = await serveApi(suite.api);
  world = await seedWorkspace(suite.api, suite.db, "input");
});
afterAll(async () => {
  await http.close();
});

/** A typed client of the served API, sending the credential as a browser or script would. */
function clientAs(credential: Credential) {
  return httpClientAs(http, credential);
}

interface Refusal {
  readonly httpStatus: number;
  readonly code: string;
  readonly berth: string;
  readonly message: string;
}

/** What a call was refused with over HTTP (fails the test if it was answered). */
async function refusal(call: Promise<unknown>): Promise<Refusal> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const data = error.data as { code: string; httpStatus: number; berth: { code: string } };
    return {
      httpStatus: data.httpStatus,
      code: data.code,
      berth: data.berth.code,
      message: error.message,
    };
  }
  throw new Error("expected the call to be refused");
}

/** The fields an input refusal names: the zod issues its message carries, path and words. */
function fieldsOf(refused: Refusal): [string, string][] {
  const issues = JSON.parse(refused.message) as { path: PropertyKey[]; message: string }[];
  return issues.map((issue) => [issue.path.map(String).join("."), issue.message]);
}

// Cookies, not tokens: a token's first use in a minute writes its last_used_at, and these
// tests compare every row.
const member = () => clientAs({ cookie: world.member.cookie });
const owner = () => clientAs({ cookie: world.owner.cookie });
const onBox = () => ({ workspaceId: world.workspaceId, sessionId: world.boxSessionId });

/**
 * Every row a call could write; a refusal leaves them as they were. The sign-in service's
 * per-address counters aside: they count every attempt, refused or not, by design.
 */
async function everyRow(): Promise<Record<string, string>> {
  const rows = await rowHashes(suite.db);
  delete rows.auth_rate_limits;
  return rows;
}

describe("NUL in text that reaches Postgres or a process", () => {
  // First in the file: the box session has never had a box, so a lease row would show a wake.
  it.each<[string, () => Promise<unknown>, string]>([
    [
      "a session title",
      () => member().sessions.create.mutate({ workspaceId: world.workspaceId, title: "a\0b" }),
      "title",
    ],
    [
      "a workspace name",
      () => owner().workspaces.create.mutate({ slug: "nul-name", name: "\0" }),
      "name",
    ],
    [
      "an API token name",
      () => owner().tokens.create.mutate({ workspaceId: world.workspaceId, name: "ci\0" }),
      "name",
    ],
    [
      "a commit message",
      () => member().git.commit.mutate({ ...onBox(), message: "fix\0" }),
      "message",
    ],
    [
      "a commit author's name",
      () =>
        member().git.commit.mutate({
          ...onBox(),
          message: "m",
          author: { name: "A\0", email: "a@example.test" },
        }),
      "author.name",
    ],
    [
      "a commit author's email",
      () =>
        member().git.commit.mutate({
          ...onBox(),
          message: "m",
          author: { name: "A", email: "a@example.test\0" },
        }),
      "author.email",
    ],
    [
      "an exec argument",
      () => member().exec.run.mutate({ ...onBox(), argv: ["touch", "ran\0"] }),
      "argv.1",
    ],
    [
      "an exec variable's value",
      () => member().exec.run.mutate({ ...onBox(), argv: ["true"], env: { V: "\0" } }),
      "env.V",
    ],
    [
      "an exec variable's name",
      () => member().exec.run.mutate({ ...onBox(), argv: ["true"], env: { "K\0": "v" } }),
      "env.K\0",
    ],
    [
      "a terminal's variable",
      () => member().terminal.open.mutate({ ...onBox(), env: { T: "\0" } }),
      "env.T",
    ],
    ["a file path", () => member().fs.mkdir.mutate({ ...onBox(), path: "a\0b" }), "path"],
    ["a branch", () => member().git.checkout.mutate({ ...onBox(), branch: "b\0" }), "branch"],
  ])("%s: 400 naming the field, nothing written, no box woken", async (_label, call, field) => {
    const before = await everyRow();
    const refused = await refusal(call());
    expect(refused).toMatchObject({ httpStatus: 400, code: "BAD_REQUEST" });
    expect(fieldsOf(refused)).toContainEqual([field, expect.stringContaining(NUL_REFUSAL)]);
    expect(await everyRow()).toEqual(before);
  });

  it("in a file transfer's path: 400 naming the field, nothing written, no box woken", async () => {
    const before = await everyRow();
    for (const method of ["PUT", "GET"] as const) {
      const response = await transfer(method, { path: "a\0b" });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { message: string } };
      expect(error.message).toMatch(/path: must not contain a NUL byte/);
    }
    expect(await everyRow()).toEqual(before);
  });

  it.each<{ label: string; path: string; body: (w: SeededWorkspace) => unknown; field: string }>([
    {
      label: "sign-up",
      path: "/sign-up/email",
      body: () => ({ name: "\0", email: "nul@example.test", password: "long enough" }),
      field: "name",
    },
    {
      label: "a profile's name",
      path: "/update-user",
      body: () => ({ name: "Ada\0" }),
      field: "name",
    },
    // Each of the next three answered 500 (Postgres refused the token; the sign-in's redirect
    // header refused NUL after its session row was written).
    {
      label: "a session to revoke",
      path: "/revoke-session",
      body: () => ({ token: "t\0" }),
      field: "token",
    },
    {
      label: "a password reset",
      path: "/reset-password",
      body: () => ({ token: "t\0", newPassword: "long enough" }),
      field: "token",
    },
    {
      label: "a sign-in's callbackURL",
      path: "/sign-in/email",
      body: (w) => ({ email: w.member.email, password: w.member.password, callbackURL: "/\0" }),
      field: "callbackURL",
    },
  ])("in $label: 400 naming the field, nothing written", async ({ path, body, field }) => {
    const before = await everyRow();
    const response = await fetch(`${http.url}/api/auth${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: publicUrl,
        cookie: world.spare.cookie,
      },
      body: JSON.stringify(body(world)),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: "INVALID_INPUT",
      message: `"${field}": ${NUL_REFUSAL}`,
    });
    expect(await everyRow()).toEqual(before);
  });
});

/** One request to the served file routes, on the box session, as the member's browser. */
function transfer(method: "PUT" | "GET", query: Record<string, string>): Promise<Response> {
  const route = method === "PUT" ? "upload" : "download";
  const url = new URL(`${http.url}/api/files/${route}`);
  for (const [key, value] of Object.entries({ ...onBox(), ...query }))
    url.searchParams.set(key, value);
  return fetch(url, {
    method,
    headers: { cookie: world.member.cookie, origin: publicUrl },
    ...(method === "PUT" ? { body: "x" } : {}),
  });
}

describe("exec of a program that cannot be one", () => {
  it("refuses an empty argv[0] as bad input, before the box is woken", async () => {
    const before = await everyRow();
    const refused = await refusal(member().exec.run.mutate({ ...onBox(), argv: [""] }));
    expect(refused).toMatchObject({ httpStatus: 400, code: "BAD_REQUEST" });
    expect(fieldsOf(refused)).toEqual([
      ["argv.0", "argv[0] must not be empty: it names the program to run"],
    ]);
    expect(await everyRow()).toEqual(before);
  });

  it("refuses a directory as bad input, and says a missing program is missing", async () => {
    await member().fs.mkdir.mutate({ ...onBox(), path: "tools" });
    for (const program of ["/", "./tools"]) {
      expect(await refusal(member().exec.run.mutate({ ...onBox(), argv: [program] }))).toEqual({
        httpStatus: 400,
        code: "BAD_REQUEST",
        berth: "invalid_request",
        message: `the program ${program} is a directory, not a program`,
      });
    }
    expect(
      await refusal(member().exec.run.mutate({ ...onBox(), argv: ["no-such-program-berth"] })),
    ).toEqual({
      httpStatus: 404,
      code: "NOT_FOUND",
      berth: "not_found",
      message: "no-such-program-berth: command not found (looked for on PATH)",
    });
  });
});

describe("paths bounded before any work", () => {
  /** The names at the box's workspace root, through the API. */
  async function rootNames(): Promise<string[]> {
    const listed = await member().fs.list.query({ ...onBox(), path: "" });
    return listed.entries.map((entry) => entry.name);
  }

  it("refuses 2,047 nested folders within a second's work, and leaves no folder", async ({
    annotate,
  }) => {
    const deep = Array<string>(2047).fill("a").join("/");
    const started = performance.now();
    const refused = await refusal(
      member().fs.mkdir.mutate({ ...onBox(), path: deep, parents: true }),
    );
    // For whoever reads the run's report; never asserted (the machine's load is not ours).
    await annotate(`refused in ${String(Math.round(performance.now() - started))} ms`);
    expect(refused).toMatchObject({ httpStatus: 400, code: "BAD_REQUEST" });
    expect(fieldsOf(refused)).toEqual([
      ["path", "is 2047 names deep; a path is at most 256 names deep"],
    ]);
    for (const method of ["PUT", "GET"] as const) {
      const response = await transfer(method, { path: deep, createParents: "1" });
      expect(response.status).toBe(400);
    }
    expect(await rootNames()).not.toContain("a");
    expect(await foldersNamed("a")).toEqual([]);
  });

  it("refuses a path past PATH_MAX under the box's own folder, and leaves no folder", async () => {
    // 16 names of 255 bytes: 4,095 bytes, within the schema; the box's folder in front passes it.
    const long = Array<string>(16).fill("n".repeat(255)).join("/");
    const refused = await refusal(
      member().fs.mkdir.mutate({ ...onBox(), path: long, parents: true }),
    );
    expect(refused).toMatchObject({ httpStatus: 400, code: "BAD_REQUEST", berth: "invalid_name" });
    expect(refused.message).toContain("past Linux's PATH_MAX of 4096 bytes");
    expect(await rootNames()).not.toContain("n".repeat(255));
  });

  it("names each limit", async () => {
    const limits: [string, string][] = [
      ["x".repeat(4097), "a path is at most 4096 bytes (Linux's PATH_MAX)"],
      [`ok/${"x".repeat(256)}`, "a name is at most 255 bytes (Linux's NAME_MAX)"],
    ];
    for (const [path, limit] of limits) {
      const refused = await refusal(member().fs.stat.query({ ...onBox(), path }));
      expect(refused.code).toBe("BAD_REQUEST");
      expect(fieldsOf(refused)).toEqual([["path", expect.stringContaining(limit)]]);
    }
  });
});

/** Folders named `name` anywhere under the suite's boxes, read from the disk. */
async function foldersNamed(name: string): Promise<string[]> {
  const entries = await readdir(suite.dataDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && entry.name === name)
    .map((entry) => `${entry.parentPath}/${entry.name}`);
}
