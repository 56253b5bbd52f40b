import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  bindBox,
  createBoxClient,
  deriveBoxToken,
  poolBindProof,
  POD_UID_HEADER,
  streamRoutes,
  type BindBoxOptions,
  type BoxClient,
} from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  errorCode,
  failedStart,
  startBoxd,
  tempFolder,
  TEST_SECRET,
  type BoxdProcess,
} from "./boxdProcess.ts";

// A warm-pool pod's boxd starts unbound, with only the pool key: it serves nothing until Berth,
// having claimed the pod, binds it once to its instance and token with a proof over the pod uid.

const poolKey = "pool-key-for-the-warm-pool-tests-0123456789";

/** A file in a fresh folder holding `content`, owner-readable only (a Secret volume's 0400). */
async function keyFile(content: string): Promise<string> {
  const path = join(await tempFolder("pool-"), "pool-key");
  await writeFile(path, content, { mode: 0o400 });
  return path;
}

/** A real boxd in pooled mode: no token, no instance id, its pod uid and the pool key's file. */
async function startPooled(
  podUid: string,
  env: Record<string, string | undefined> = {},
): Promise<BoxdProcess> {
  return startBoxd({
    env: {
      BOXD_TOKEN: undefined,
      BOXD_INSTANCE_ID: undefined,
      BOXD_POD_UID: podUid,
      BOXD_POOL_KEY_FILE: await keyFile(`${poolKey}\n`),
      ...env,
    },
  });
}

function tokenFor(instanceId: string): string {
  return deriveBoxToken({ secret: TEST_SECRET, instanceId });
}

/** The codes a client gets from a JSON operation, both streams, exec and a terminal attach. */
async function codesOn(client: BoxClient): Promise<string[]> {
  return [
    await errorCode(client.list({ path: "" })),
    await errorCode(client.exec({ argv: ["true"] })),
    await errorCode(client.upload({ path: "x", body: "data" })),
    await errorCode(client.download({ path: "x" })),
    await errorCode(client.attachTerminal({ id: "t-none", onEvent: () => undefined })),
  ];
}

function fiveTimes(code: string): string[] {
  return Array.from({ length: 5 }, () => code);
}

describe("a warm-pool boxd", () => {
  const podUid = randomUUID();
  const proof = poolBindProof(poolKey, podUid);
  const instanceId = "box-pool-first";
  const token = tokenFor(instanceId);
  let boxd: BoxdProcess;
  let client: BoxClient;
  beforeAll(async () => {
    boxd = await startPooled(podUid);
    client = createBoxClient({ baseUrl: boxd.baseUrl, token, podUid });
  });
  afterAll(async () => {
    await boxd.stop();
  });

  /** The right bind for this pod, with some of its fields replaced. */
  const bind = (
    overrides: Partial<Pick<BindBoxOptions, "podUid" | "proof" | "instanceId" | "token">> = {},
  ) => bindBox({ baseUrl: boxd.baseUrl, podUid, proof, instanceId, token, ...overrides });

  describe("unbound", () => {
    it("refuses every kind of endpoint with unavailable (503), naming the bind", async () => {
      expect(await codesOn(client)).toEqual(fiveTimes("unavailable"));
      const refusal = await client.listTerminals().catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: "unavailable", status: 503 });
      expect((refusal as Error).message).toMatch(/warm-pool pod not yet bound/);
    });

    it("checks the pod uid first: another pod's uid is wrong_pod", async () => {
      const elsewhere = createBoxClient({ baseUrl: boxd.baseUrl, token, podUid: randomUUID() });
      expect(await codesOn(elsewhere)).toEqual(fiveTimes("wrong_pod"));
    });

    it("answers health and readiness with an empty instance id", async () => {
      const anonymous = createBoxClient({ baseUrl: boxd.baseUrl, token: "" });
      await expect(anonymous.health()).resolves.toEqual({ ok: true, instanceId: "" });
      await expect(anonymous.ready()).resolves.toEqual({ ready: true, instanceId: "" });
    });

    it.each([
      ["another pod's proof", { proof: poolBindProof(poolKey, randomUUID()) }, "unauthorized"],
      ["another key's proof", { proof: poolBindProof(`${poolKey}-x`, podUid) }, "unauthorized"],
      ["the pool key itself", { proof: poolKey }, "unauthorized"],
      ["another pod's uid", { podUid: randomUUID() }, "wrong_pod"],
    ])("refuses a bind with %s, and stays unbound", async (_, overrides, code) => {
      expect(await errorCode(bind(overrides))).toBe(code);
      expect(await client.health()).toEqual({ ok: true, instanceId: "" });
      expect(await errorCode(client.list({ path: "" }))).toBe("unavailable");
    });

    it("refuses a bind without a proof, by another method, or with a bad body", async () => {
      const url = `${boxd.baseUrl}${streamRoutes.bind}`;
      const call = async (init: {
        readonly method?: string;
        readonly body?: string;
        readonly headers?: Record<string, string>;
      }) => {
        const response = await fetch(url, {
          method: init.method ?? "POST",
          body: init.body ?? null,
          headers: { [POD_UID_HEADER]: podUid, ...init.headers },
        });
        const reply: unknown = await response.json();
        return { status: response.status, body: reply };
      };
      const body = JSON.stringify({ instanceId, token });
      const withProof = { authorization: `Bind ${proof}` };
      expect(await call({ body })).toMatchObject({
        status: 401,
        body: { error: { code: "unauthorized" } },
      });
      expect(await call({ body, headers: { authorization: `Bearer ${proof}` } })).toMatchObject({
        status: 401,
      });
      expect(await call({ method: "GET", headers: withProof })).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_request", message: "/v1/bind takes POST" } },
      });
      for (const bad of [
        { instanceId, token: "short" },
        { instanceId: "", token },
        { instanceId: "x".repeat(254), token },
        { instanceId, token, extra: 1 },
        { token },
      ]) {
        expect(await call({ body: JSON.stringify(bad), headers: withProof })).toMatchObject({
          status: 400,
          body: { error: { code: "invalid_request" } },
        });
      }
      expect(await client.health()).toEqual({ ok: true, instanceId: "" });
    });
  });

  describe("bound", () => {
    beforeAll(async () => {
      await expect(bind()).resolves.toEqual({ instanceId });
    });

    it("opens the box to the bound token, and health names the instance", async () => {
      await expect(client.list({ path: "" })).resolves.toEqual({ entries: [] });
      await expect(client.health()).resolves.toEqual({ ok: true, instanceId });
      await expect(client.ready()).resolves.toEqual({ ready: true, instanceId });
      const terminal = await client.openTerminal();
      const connection = await client.attachTerminal({ id: terminal.id, onEvent: () => undefined });
      await connection.close();
      await client.closeTerminal({ id: terminal.id });
    });

    it("logs the bind with the instance id, and names it on later lines", () => {
      const lines = boxd
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; instanceId?: string });
      const bound = lines.findIndex((line) => line.msg === "bound");
      expect(lines[bound]).toMatchObject({ instanceId });
      expect(lines.slice(bound + 1).every((line) => line.instanceId === instanceId)).toBe(true);
    });

    it("refuses any other token, and still checks the pod uid", async () => {
      const other = createBoxClient({ baseUrl: boxd.baseUrl, token: tokenFor("box-x"), podUid });
      expect(await errorCode(other.list({ path: "" }))).toBe("unauthorized");
      const elsewhere = createBoxClient({ baseUrl: boxd.baseUrl, token, podUid: randomUUID() });
      expect(await errorCode(elsewhere.list({ path: "" }))).toBe("wrong_pod");
    });

    it("answers the same bind again (a retry whose reply was lost)", async () => {
      await expect(bind()).resolves.toEqual({ instanceId });
    });

    it.each([
      [
        "another instance and token",
        { instanceId: "box-pool-other", token: tokenFor("box-pool-other") },
      ],
      ["another token", { token: tokenFor("box-pool-other") }],
      ["another instance", { instanceId: "box-pool-other" }],
    ])("refuses a bind to %s with already_exists; the first binding stands", async (_, other) => {
      const refusal = await bind(other).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: "already_exists", status: 409 });
      expect((refusal as Error).message).toMatch(/already bound to another box/);
      await expect(client.list({ path: "" })).resolves.toEqual({ entries: [] });
      await expect(client.health()).resolves.toEqual({ ok: true, instanceId });
    });

    it("a wrong proof is still unauthorized, even for the binding boxd has", async () => {
      expect(await errorCode(bind({ proof: poolBindProof(poolKey, randomUUID()) }))).toBe(
        "unauthorized",
      );
    });

    it("keeps the token, the pool key and its file out of the commands it runs", async () => {
      const { stdout } = await client.exec({ argv: ["env"] });
      expect(stdout).not.toContain("BOXD_");
      expect(stdout).not.toContain(token);
      expect(stdout).not.toContain(poolKey);
    });
  });
});

describe("concurrent binds", () => {
  it("exactly one of several binds with different tokens wins", async () => {
    const podUid = randomUUID();
    const boxd = await startPooled(podUid);
    try {
      const proof = poolBindProof(poolKey, podUid);
      const ids = ["box-race-a", "box-race-b", "box-race-c", "box-race-d"];
      const results = await Promise.allSettled(
        ids.map((id) =>
          bindBox({ baseUrl: boxd.baseUrl, podUid, proof, instanceId: id, token: tokenFor(id) }),
        ),
      );
      const won = results.flatMap((result, index) =>
        result.status === "fulfilled" ? [ids[index] ?? ""] : [],
      );
      expect(won).toHaveLength(1);
      const winner = won[0] ?? "";
      for (const result of results) {
        if (result.status === "rejected") {
          expect(result.reason).toMatchObject({ code: "already_exists" });
        }
      }
      const anonymous = createBoxClient({ baseUrl: boxd.baseUrl, token: "" });
      await expect(anonymous.health()).resolves.toEqual({ ok: true, instanceId: winner });
      for (const id of ids) {
        const client = createBoxClient({ baseUrl: boxd.baseUrl, token: tokenFor(id), podUid });
        const outcome = await client.list({ path: "" }).then(
          () => "served",
          (error: unknown) => (error as { code: string }).code,
        );
        expect(outcome).toBe(id === winner ? "served" : "unauthorized");
      }
    } finally {
      await boxd.stop();
    }
  });
});

describe("a warm-pool boxd given BOXD_INSTANCE_ID", () => {
  it("binds only to that instance", async () => {
    const podUid = randomUUID();
    const boxd = await startPooled(podUid, { BOXD_INSTANCE_ID: "box-expected" });
    try {
      const proof = poolBindProof(poolKey, podUid);
      const to = (instanceId: string) =>
        bindBox({ baseUrl: boxd.baseUrl, podUid, proof, instanceId, token: tokenFor(instanceId) });
      expect(await errorCode(to("box-unexpected"))).toBe("invalid_request");
      await expect(to("box-expected")).resolves.toEqual({ instanceId: "box-expected" });
    } finally {
      await boxd.stop();
    }
  });
});

describe("a boxd started with its token", () => {
  it("refuses a bind with invalid_request: nothing to bind", async () => {
    const podUid = randomUUID();
    const boxd = await startBoxd({ env: { BOXD_POD_UID: podUid } });
    try {
      const refusal = await bindBox({
        baseUrl: boxd.baseUrl,
        podUid,
        proof: poolBindProof(poolKey, podUid),
        instanceId: "box-other",
        token: tokenFor("box-other"),
      }).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: "invalid_request", status: 400 });
      expect((refusal as Error).message).toMatch(/started with its token: nothing to bind/);
      await expect(boxd.client.list({ path: "" })).resolves.toEqual({ entries: [] });
      await expect(boxd.client.health()).resolves.toEqual({
        ok: true,
        instanceId: boxd.instanceId,
      });
    } finally {
      await boxd.stop();
    }
  });
});

describe("bindBox", () => {
  it("binds a boxd on a Unix socket, through a dispatcher of its own", async () => {
    const podUid = randomUUID();
    const socketPath = join(await tempFolder("sock-"), "boxd.sock");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "..", "src", "main.ts")],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: await tempFolder("home-"),
          BOXD_POOL_KEY_FILE: await keyFile(poolKey),
          BOXD_POD_UID: podUid,
          BOXD_SOCKET: socketPath,
          BOXD_ROOT: await tempFolder(),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, "exit");
    try {
      const deadline = Date.now() + 20_000;
      while (!output.includes('"msg":"listening"')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(output);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const instanceId = "box-pool-socket";
      const token = tokenFor(instanceId);
      const proof = poolBindProof(poolKey, podUid);
      await expect(bindBox({ socketPath, podUid, proof, instanceId, token })).resolves.toEqual({
        instanceId,
      });
      const client = createBoxClient({ socketPath, token, podUid });
      await expect(client.list({ path: "" })).resolves.toEqual({ entries: [] });
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });

  it("rejects with a BoxError when nothing answers", async () => {
    const refusal = await bindBox({
      baseUrl: "http://127.0.0.1:1",
      podUid: "pod",
      proof: "p",
      instanceId: "box-x",
      token: tokenFor("box-x"),
    }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ name: "BoxError", code: "unavailable" });
  });

  it("refuses a token under 32 characters before sending", async () => {
    const refusal = await bindBox({
      baseUrl: "http://127.0.0.1:1",
      podUid: "pod",
      proof: "p",
      instanceId: "box-x",
      token: "short",
    }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ name: "BoxError", code: "invalid_request" });
  });
});

describe("BOXD_POOL_KEY_FILE's environment", () => {
  const podUid = randomUUID();

  it.each([
    ["BOXD_TOKEN", { BOXD_TOKEN: tokenFor("box-failed-start") }],
    ["BOXD_TOKEN_FILE", { BOXD_TOKEN_FILE: "/nonexistent/token" }],
  ])("refuses to start with both %s and BOXD_POOL_KEY_FILE", async (_, other) => {
    const path = await keyFile(poolKey);
    const { code, output } = await failedStart({
      ...other,
      BOXD_POOL_KEY_FILE: path,
      BOXD_POD_UID: podUid,
    });
    expect(code).toBe(1);
    expect(output).toMatch(
      /BOXD_TOKEN: set exactly one of BOXD_TOKEN, BOXD_TOKEN_FD, BOXD_TOKEN_FILE and BOXD_POOL_KEY_FILE/,
    );
  });

  it("refuses to start without BOXD_POD_UID, which the proof is over", async () => {
    const { code, output } = await failedStart({ BOXD_POOL_KEY_FILE: await keyFile(poolKey) });
    expect(code).toBe(1);
    expect(output).toContain("BOXD_POD_UID: is required with BOXD_POOL_KEY_FILE");
  });

  it("still requires BOXD_INSTANCE_ID without it", async () => {
    const { code, output } = await failedStart({
      BOXD_TOKEN: tokenFor("box-x"),
      BOXD_INSTANCE_ID: undefined,
    });
    expect(code).toBe(1);
    expect(output).toContain("BOXD_INSTANCE_ID: is required");
  });

  it("refuses a pool key under 32 characters, and does not print it", async () => {
    const { code, output } = await failedStart({
      BOXD_POOL_KEY_FILE: await keyFile("short-pool-key-in-a-file\n"),
      BOXD_POD_UID: podUid,
    });
    expect(code).toBe(1);
    expect(output).toContain("the pool key in BOXD_POOL_KEY_FILE is under 32 characters");
    expect(output).not.toContain("short-pool-key-in-a-file");
  });

  it("refuses a missing pool key file, naming the variable, the path and the reason", async () => {
    const missing = join(await tempFolder(), "absent");
    const { code, output } = await failedStart({
      BOXD_POOL_KEY_FILE: missing,
      BOXD_POD_UID: podUid,
    });
    expect(code).toBe(1);
    expect(output).toContain(
      `BOXD_POOL_KEY_FILE: cannot read the pool key file ${missing} (ENOENT)`,
    );
  });
});
