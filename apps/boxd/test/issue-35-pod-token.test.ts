import { randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BoxError, createBoxClient, deriveBoxToken, type BoxClient } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  errorCode,
  failedStart,
  startBoxd,
  tempFolder,
  TEST_SECRET,
  type BoxdProcess,
} from "./boxdProcess.ts";

// Issue 35: a Kubernetes box reads its token (a secret, not an identifier) from a mounted
// file, and checks the pod uid its clients expect; the uid alone never opens the box.

const instanceId = "box-issue-35";
const token = deriveBoxToken({ secret: TEST_SECRET, instanceId });

/** A file in a fresh folder holding `content`, readable by its owner only (a Secret volume's 0400). */
async function tokenFile(content: string): Promise<string> {
  const path = join(await tempFolder("secret-"), "token");
  await writeFile(path, content, { mode: 0o400 });
  return path;
}

/** The codes a client gets from a JSON operation, both streams, exec and a terminal attach. */
async function codesOn(client: BoxClient, terminalId: string): Promise<string[]> {
  return [
    await errorCode(client.list({ path: "" })),
    await errorCode(client.exec({ argv: ["true"] })),
    await errorCode(client.upload({ path: "x", body: "data" })),
    await errorCode(client.download({ path: "x" })),
    await errorCode(client.attachTerminal({ id: terminalId, onEvent: () => undefined })),
  ];
}

function fiveTimes(code: string): string[] {
  return Array.from({ length: 5 }, () => code);
}

describe("BOXD_TOKEN_FILE", () => {
  let boxd: BoxdProcess;
  let path: string;
  beforeAll(async () => {
    path = await tokenFile(`${token}\n`);
    boxd = await startBoxd({ instanceId, env: { BOXD_TOKEN: undefined, BOXD_TOKEN_FILE: path } });
  });
  afterAll(async () => {
    await boxd.stop();
  });

  it("serves with the token read from the file, its trailing newline dropped", async () => {
    await expect(boxd.client.list({ path: "" })).resolves.toEqual({ entries: [] });
    const wrong = createBoxClient({ baseUrl: boxd.baseUrl, token: "f".repeat(64) });
    expect(await errorCode(wrong.list({ path: "" }))).toBe("unauthorized");
  });

  it("reads the file once, at start: a later change to it opens nothing", async () => {
    const other = deriveBoxToken({ secret: TEST_SECRET, instanceId: `${instanceId}-other` });
    // Replaced, not rewritten, as a Secret volume's update swaps its files.
    await writeFile(`${path}.next`, other);
    await rename(`${path}.next`, path);
    const withNew = createBoxClient({ baseUrl: boxd.baseUrl, token: other });
    expect(await errorCode(withNew.list({ path: "" }))).toBe("unauthorized");
    await expect(boxd.client.list({ path: "" })).resolves.toEqual({ entries: [] });
  });

  it("without BOXD_POD_UID ignores a pod uid a client names (local boxes have none)", async () => {
    const naming = createBoxClient({ baseUrl: boxd.baseUrl, token, podUid: randomUUID() });
    await expect(naming.list({ path: "" })).resolves.toEqual({ entries: [] });
  });

  it.each([
    ["BOXD_TOKEN", { BOXD_TOKEN: token }],
    ["BOXD_TOKEN_FD", { BOXD_TOKEN: undefined, BOXD_TOKEN_FD: "3" }],
  ])("refuses to start with both %s and BOXD_TOKEN_FILE", async (_, other) => {
    const { code, output } = await failedStart({ ...other, BOXD_TOKEN_FILE: path });
    expect(code).toBe(1);
    expect(output).toMatch(
      /BOXD_TOKEN: set exactly one of BOXD_TOKEN, BOXD_TOKEN_FD, BOXD_TOKEN_FILE and BOXD_POOL_KEY_FILE/,
    );
  });

  it("refuses a token file under 32 characters, and does not print it", async () => {
    const short = await tokenFile("short-token-in-a-file\n");
    const { code, output } = await failedStart({ BOXD_TOKEN_FILE: short });
    expect(code).toBe(1);
    expect(output).toContain("the token in BOXD_TOKEN_FILE is under 32 characters");
    expect(output).not.toContain("short-token-in-a-file");
  });

  it.each([
    ["a missing file", async () => join(await tempFolder(), "absent"), "ENOENT"],
    [
      "a folder",
      async () => {
        const folder = join(await tempFolder(), "token");
        await mkdir(folder);
        return folder;
      },
      "EISDIR",
    ],
  ])("refuses %s as the token file, naming the variable", async (_, make, reason) => {
    const unreadable = await make();
    const { code, output } = await failedStart({ BOXD_TOKEN_FILE: unreadable });
    expect(code).toBe(1);
    expect(output).toContain(
      `BOXD_TOKEN_FILE: cannot read the token file ${unreadable} (${reason})`,
    );
  });
});

describe("BOXD_POD_UID", () => {
  const podUid = randomUUID();
  let boxd: BoxdProcess;
  let terminalId: string;
  beforeAll(async () => {
    boxd = await startBoxd({ instanceId, env: { BOXD_POD_UID: podUid } });
    terminalId = (await boxd.client.openTerminal()).id;
  });
  afterAll(async () => {
    await boxd.stop();
  });

  it("serves a client naming its pod uid, with its token, on every kind of endpoint", async () => {
    const client = createBoxClient({ baseUrl: boxd.baseUrl, token, podUid });
    await client.upload({ path: "a.txt", body: "one" });
    const download = await client.download({ path: "a.txt" });
    let text = "";
    for await (const chunk of download.body) text += (chunk as Buffer).toString();
    expect(text).toBe("one");
    expect(await client.exec({ argv: ["cat", "a.txt"] })).toMatchObject({ stdout: "one" });
    const connection = await client.attachTerminal({ id: terminalId, onEvent: () => undefined });
    await connection.close();
  });

  it.each([
    ["another pod's uid", randomUUID()],
    ["no pod uid", undefined],
  ])("refuses a client naming %s with wrong_pod (421), even with the token", async (_, uid) => {
    const client = createBoxClient({ baseUrl: boxd.baseUrl, token, podUid: uid });
    expect(await codesOn(client, terminalId)).toEqual(fiveTimes("wrong_pod"));
    const refusal = await client.listTerminals().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BoxError);
    expect(refusal).toMatchObject({ code: "wrong_pod", status: 421 });
    expect((refusal as BoxError).message).toMatch(/another pod/);
  });

  it.each([
    ["no token", ""],
    ["a wrong token", "f".repeat(64)],
    ["another box's token", deriveBoxToken({ secret: TEST_SECRET, instanceId: "box-other" })],
  ])("never opens the box on the pod uid alone: %s is unauthorized", async (_, presented) => {
    const client = createBoxClient({ baseUrl: boxd.baseUrl, token: presented, podUid });
    expect(await codesOn(client, terminalId)).toEqual(fiveTimes("unauthorized"));
  });

  it("answers health and readiness without a token or a pod uid", async () => {
    const anonymous = createBoxClient({ baseUrl: boxd.baseUrl, token: "" });
    await expect(anonymous.health()).resolves.toEqual({ ok: true, instanceId });
    await expect(anonymous.ready()).resolves.toEqual({ ready: true, instanceId });
  });
});
