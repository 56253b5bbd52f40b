import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createBoxClient, deriveBoxToken, type TerminalEvent } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempFolder, TEST_SECRET } from "./boxdProcess.ts";

const main = join(import.meta.dirname, "..", "src", "main.ts");

/**
 * boxd as a local box runs it: the token on a descriptor, the socket made in a folder it gets as
 * a descriptor (and closes), nothing secret in its environment.
 */
let child: ReturnType<typeof spawn>;
let socketPath: string;
let token: string;
let output = "";
beforeAll(async () => {
  const root = await tempFolder();
  const socketDir = await tempFolder("sock-");
  const instanceId = "box-socket-mode";
  token = deriveBoxToken({ secret: TEST_SECRET, instanceId });
  socketPath = join(socketDir, "boxd.sock");
  const dirFd = openSync(socketDir, "r");
  try {
    child = spawn(process.execPath, ["--import", "tsx", main], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: await tempFolder("home-"),
        BOXD_TOKEN_FD: "4",
        BOXD_SOCKET: "boxd.sock",
        BOXD_SOCKET_DIR_FD: "3",
        BOXD_INSTANCE_ID: instanceId,
        BOXD_ROOT: root,
      },
      stdio: ["ignore", "pipe", "pipe", dirFd, "pipe"],
    });
  } finally {
    closeSync(dirFd);
  }
  const tokenPipe = child.stdio[4] as NodeJS.WritableStream;
  tokenPipe.end(token);
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!output.includes('"msg":"listening"')) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`no listening:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});
afterAll(async () => {
  child.kill("SIGTERM");
  if (child.exitCode === null) await once(child, "exit");
});

describe("boxd on a Unix socket with its token on a descriptor", () => {
  it("serves every transport over the socket: fetch, node:http streams and the terminal's WebSocket", async () => {
    const client = createBoxClient({ socketPath, token });
    expect((await client.health()).instanceId).toBe("box-socket-mode");
    expect(await client.exec({ argv: ["sh", "-c", "printf hi"] })).toMatchObject({
      exitCode: 0,
      stdout: "hi",
    });
    await client.upload({ path: "big.bin", body: Readable.from([Buffer.alloc(300_000, 7)]) });
    const download = await client.download({ path: "big.bin" });
    let bytes = 0;
    for await (const chunk of download.body) bytes += (chunk as Buffer).length;
    expect(bytes).toBe(300_000);

    const terminal = await client.openTerminal();
    const events: TerminalEvent[] = [];
    const connection = await client.attachTerminal({
      id: terminal.id,
      onEvent: (event) => events.push(event),
    });
    await client.writeTerminal({ id: terminal.id, data: "echo socket-$((6*7))\n" });
    const deadline = Date.now() + 15_000;
    const text = () => events.map((event) => (event.type === "output" ? event.data : "")).join("");
    while (!text().includes("socket-42") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(text()).toContain("socket-42");
    await connection.close();
  });

  it("refuses a wrong token over the socket", async () => {
    const client = createBoxClient({ socketPath, token: "f".repeat(64) });
    await expect(client.list({ path: "" })).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("keeps the token out of its environment and holds neither descriptor once serving", async () => {
    const pid = child.pid ?? 0;
    const environ = await readFile(`/proc/${String(pid)}/environ`, "utf8");
    expect(environ).not.toContain(token);
    const links = await Promise.all(
      (await readdir(`/proc/${String(pid)}/fd`)).map((fd) =>
        readlink(`/proc/${String(pid)}/fd/${fd}`).catch(() => ""),
      ),
    );
    expect(links.some((link) => link.includes("sock-"))).toBe(false);
  });
});
