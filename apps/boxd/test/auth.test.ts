import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createBoxClient, deriveBoxToken } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { errorCode, exitsWithin, startBoxd, TEST_SECRET, type BoxdProcess } from "./boxdProcess.ts";

let boxd: BoxdProcess;
beforeAll(async () => {
  boxd = await startBoxd();
});
afterAll(async () => {
  await boxd.stop();
});

/** Clients holding a missing, a wrong, and another instance's token. */
function badClients() {
  return {
    "no token": createBoxClient({ baseUrl: boxd.baseUrl, token: "" }),
    "a wrong token": createBoxClient({ baseUrl: boxd.baseUrl, token: "f".repeat(64) }),
    "another instance's token": createBoxClient({
      baseUrl: boxd.baseUrl,
      token: deriveBoxToken({ secret: TEST_SECRET, instanceId: `${boxd.instanceId}-other` }),
    }),
  };
}

describe("boxd's token", () => {
  it("admits the token derived for its own instance", async () => {
    await expect(boxd.client.list({ path: "" })).resolves.toEqual({ entries: [] });
  });

  it.each(["no token", "a wrong token", "another instance's token"] as const)(
    "refuses %s with 401 on every kind of endpoint",
    async (which) => {
      const client = badClients()[which];
      expect(await errorCode(client.list({ path: "" }))).toBe("unauthorized");
      expect(await errorCode(client.exec({ argv: ["true"] }))).toBe("unauthorized");
      expect(await errorCode(client.upload({ path: "x", body: "data" }))).toBe("unauthorized");
      expect(await errorCode(client.download({ path: "x" }))).toBe("unauthorized");
      expect(await errorCode(client.listTerminals())).toBe("unauthorized");
    },
  );

  it("refuses the WebSocket upgrade without the right token (401, no socket)", async () => {
    const terminal = await boxd.client.openTerminal();
    try {
      for (const client of Object.values(badClients())) {
        const attach = client.attachTerminal({ id: terminal.id, onEvent: () => undefined });
        expect(await errorCode(attach)).toBe("unauthorized");
      }
      // A raw upgrade with no Authorization header at all.
      const socket = new WebSocket(
        `ws://127.0.0.1:${boxd.port}/v1/terminals/attach?id=${terminal.id}`,
      );
      socket.on("error", () => undefined);
      const [, response] = (await once(socket, "unexpected-response")) as [
        unknown,
        { statusCode: number },
      ];
      expect(response.statusCode).toBe(401);
      socket.terminate();
    } finally {
      await boxd.client.closeTerminal({ id: terminal.id });
    }
  });

  it("answers health and readiness without a token", async () => {
    const anonymous = createBoxClient({ baseUrl: boxd.baseUrl, token: "" });
    await expect(anonymous.health()).resolves.toEqual({ ok: true, instanceId: boxd.instanceId });
    await expect(anonymous.ready()).resolves.toEqual({ ready: true, instanceId: boxd.instanceId });
  });
});

describe("deriveBoxToken and the wire", () => {
  it("makes tokens that differ per instance and never equal the secret", () => {
    const a = deriveBoxToken({ secret: TEST_SECRET, instanceId: "a" });
    const b = deriveBoxToken({ secret: TEST_SECRET, instanceId: "b" });
    expect(a).not.toBe(b);
    expect(a).not.toContain(TEST_SECRET);
  });
});

describe("the boxd process", () => {
  it("lists every bad variable in one message and exits 1", async () => {
    const main = join(import.meta.dirname, "..", "src", "main.ts");
    const child = spawn(process.execPath, ["--import", "tsx", main], {
      env: { PATH: process.env.PATH ?? "", BOXD_TOKEN: "short", BOXD_PORT: "99999" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain("boxd: invalid environment (4 problems)");
    expect(stderr).toMatch(/BOXD_TOKEN: must be at least 32 characters/);
    expect(stderr).toMatch(/BOXD_INSTANCE_ID: is required/);
    expect(stderr).toMatch(/BOXD_ROOT: is required/);
    expect(stderr).toMatch(/BOXD_PORT: must be 0–65535/);
  });

  it("logs JSON lines, stops on SIGTERM (closing its terminals) and exits 0", async () => {
    const own = await startBoxd();
    const terminal = await own.client.openTerminal();
    const stopping = Date.now();
    const { code, signal } = await own.stop();
    // Far below any hang (an open terminal must not hold the stop up), not a speed claim.
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const messages = own
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(["listening", "terminal opened", "stopping", "stopped"]);
    // The shell went with it.
    expect(await exitsWithin(terminal.pid)).toBe(true);
  });
});
