import { access, readdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { BoxError } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBoxd, type BoxdProcess } from "./boxdProcess.ts";

// Issue 30, input defects, at boxd itself (the API's own checks come first: packages/api/test/
// issue-30-input-defects.test.ts): odd programs and odd paths are typed refusals, never
// `internal`, and a refused path leaves no folder behind.

let boxd: BoxdProcess;
beforeAll(async () => {
  boxd = await startBoxd();
});
afterAll(async () => {
  await boxd.stop();
});

/** The code and message a call was refused with (fails the test if it was answered). */
async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof BoxError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the call to be refused");
}

/** A JSON operation sent as is, with boxd's token: what boxd answers, with no client check first. */
async function postToBoxd(
  path: string,
  body: unknown,
): Promise<{ status: number; code: string; message: string }> {
  const response = await fetch(`${boxd.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${boxd.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...error };
}

async function exists(path: string): Promise<boolean> {
  return access(join(boxd.root, path)).then(
    () => true,
    () => false,
  );
}

const deepPath = Array<string>(2047).fill("a").join("/");
/** 16 names of 255 bytes: within PATH_LIMITS, past PATH_MAX once the root is in front. */
const pastPathMax = Array<string>(16).fill("n".repeat(255)).join("/");

describe("exec: a program that cannot start is a typed, truthful refusal", () => {
  beforeAll(async () => {
    const { client } = boxd;
    await client.mkdir({ path: "sub" });
    await client.mkdir({ path: "onPath/tool", parents: true });
    await client.write({ path: "notes.txt", content: "not a program" });
    await client.write({ path: "orphan.sh", content: "#!/no/such/interpreter\n", mode: 0o755 });
  });

  it.each([
    [[""], "invalid_request", "argv[0] must not be empty"],
    [["./sub"], "invalid_request", "the program ./sub is a directory"],
    [["/"], "invalid_request", "the program / is a directory"],
    [["./notes.txt"], "permission_denied", "the program ./notes.txt is not executable"],
    [["./orphan.sh"], "not_found", "names an interpreter (its #! line) that is not installed"],
    [["./missing"], "not_found", "the program ./missing does not exist"],
    [["no-such-command-berth"], "not_found", "no-such-command-berth: command not found"],
  ])("%j: %s", async (argv, code, message) => {
    const refused = await refusal(boxd.client.exec({ argv }));
    expect(refused.code).toBe(code);
    expect(refused.message).toContain(message);
  });

  it("names the folder PATH offered for a bare name", async () => {
    const refused = await refusal(
      boxd.client.exec({ argv: ["tool"], env: { PATH: join(boxd.root, "onPath") } }),
    );
    expect(refused).toEqual({
      code: "invalid_request",
      message: `the program tool (${join(boxd.root, "onPath", "tool")}) is a directory, not a program`,
    });
  });

  it("refuses NUL in argv and env, names the field, and runs nothing", async () => {
    const cases: [object, string][] = [
      [{ argv: ["touch", "ran\0"] }, "argv.1: must not contain a NUL byte"],
      [{ argv: ["touch", "ran"], env: { "X\0": "1" } }, "env.X\0: a variable's name must not"],
      [{ argv: ["touch", "ran"], env: { X: "\0" } }, "env.X: must not contain a NUL byte"],
    ];
    for (const [request, message] of cases) {
      // Past the client's own check of the request, straight to boxd's.
      expect(await postToBoxd("/v1/exec", request)).toEqual({
        status: 400,
        code: "invalid_request",
        message: expect.stringContaining(`exec: ${message}`) as string,
      });
      expect(await refusal(boxd.client.exec(request as { argv: string[] }))).toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining(`exec: ${message}`) as string,
      });
    }
    expect(await postToBoxd("/v1/terminals/open", { env: { T: "a\0" } })).toEqual({
      status: 400,
      code: "invalid_request",
      message: "openTerminal: env.T: must not contain a NUL byte (U+0000)",
    });
    expect(await exists("ran")).toBe(false);
  });
});

describe("paths: bounded before any work, and a refusal leaves nothing behind", () => {
  it("refuses 2,047 nested folders at once, naming the limit, and makes none", async ({
    annotate,
  }) => {
    const started = performance.now();
    const refused = await refusal(boxd.client.mkdir({ path: deepPath, parents: true }));
    // How long it took, in the run's report for whoever reads it; never asserted.
    await annotate(`refused in ${String(Math.round(performance.now() - started))} ms`);
    expect(refused.code).toBe("invalid_request");
    expect(refused.message).toContain("a path is at most 256 names deep");
    expect(await exists("a")).toBe(false);
    // A path in a query has no schema in front of it: boxd's own check answers.
    expect(await refusal(boxd.client.download({ path: deepPath }))).toMatchObject({
      code: "invalid_name",
      message: "the path is 2047 names deep; a path is at most 256 names deep",
    });
  });

  it("refuses a path that would pass PATH_MAX under the workspace folder, making nothing", async () => {
    const { client } = boxd;
    for (const work of [
      () => client.mkdir({ path: pastPathMax, parents: true }),
      () =>
        client.write({ path: `${pastPathMax.slice(0, -2)}/f`, content: "x", createParents: true }),
      () => client.upload({ path: pastPathMax, body: "x", createParents: true }),
    ]) {
      const refused = await refusal(work());
      expect(refused.code).toBe("invalid_name");
      expect(refused.message).toContain("past Linux's PATH_MAX of 4096 bytes");
    }
    expect(await exists("n".repeat(255))).toBe(false);
  });

  it("takes back the folders a mkdir -p made when it fails part-way", async () => {
    // A symlink to a folder 3.6 KB deep: the path given is short, but the folders made
    // through it pass PATH_MAX after two levels (their real path cannot be checked).
    const deep = Array<string>(14).fill("d".repeat(255)).join("/");
    await boxd.client.mkdir({ path: deep, parents: true });
    await symlink(join(boxd.root, deep), join(boxd.root, "link"));
    const through = `link/${"b".repeat(200)}/${"c".repeat(200)}/${"e".repeat(200)}`;

    const refused = await refusal(boxd.client.mkdir({ path: through, parents: true }));
    expect(refused.code).toBe("invalid_name");
    expect(refused.message).toContain("PATH_MAX");
    const written = await refusal(
      boxd.client.write({ path: `${through}/f.txt`, content: "x", createParents: true }),
    );
    expect(written.code).toBe("invalid_name");
    expect(await readdir(join(boxd.root, deep))).toEqual([]);
  });

  it("takes back the folders a refused write made for its file", async () => {
    const refused = await refusal(
      boxd.client.write({
        path: "fresh/sub/file.txt",
        content: "x",
        createParents: true,
        expectedVersion: "0".repeat(64),
      }),
    );
    expect(refused.code).toBe("version_conflict");
    expect(await exists("fresh")).toBe(false);
    // Folders that were there before stay; only the ones the call made go.
    await boxd.client.mkdir({ path: "kept" });
    await refusal(
      boxd.client.write({
        path: "kept/new/file.txt",
        content: "x",
        createParents: true,
        expectedVersion: "0".repeat(64),
      }),
    );
    expect(await readdir(join(boxd.root, "kept"))).toEqual([]);
  });

  it("still makes a path 256 names deep, in one walk", async () => {
    const path = Array<string>(256).fill("z").join("/");
    await boxd.client.mkdir({ path, parents: true });
    expect((await boxd.client.stat({ path })).entry.type).toBe("dir");
    await boxd.client.remove({ path: "z", recursive: true });
  });
});
