import { createBerthClient, createTokenWithPassword } from "@berth/client";
import { readMigrationFiles } from "@berth/db/migrate";
import { LocalBackend } from "@berth/sandbox";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  freePort,
  killGroup,
  startLauncher,
  untilRunning,
  type LauncherProcess,
} from "./launcherProcess.ts";
import { listeningTcpPorts } from "./listeningPorts.ts";

const started: LauncherProcess[] = [];
const dataDir = await mkdtemp(join(tmpdir(), "berth-start-"));

afterEach(async () => {
  await Promise.all(started.splice(0).map(killGroup));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function launch(): Promise<LauncherProcess> {
  const launcher = startLauncher({
    BERTH_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    BERTH_DEMO_BOX: "off",
  });
  started.push(launcher);
  return launcher;
}

interface Status {
  version: string;
  database: { engine: string; version?: string; url?: string };
  latestMigration: { name: string } | null;
}

async function readStatus(url: string): Promise<Status> {
  const response = await fetch(new URL("/api/trpc/status.get", url));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { data: { json: Status } } };
  return body.result.data.json;
}

async function until<T>(read: () => T | null | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function postJson(url: string, path: string, body: unknown) {
  return fetch(new URL(path, url), {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify(body),
  });
}

/** The statuses of wrong-password sign-ins, one per X-Forwarded-For value, in order. */
async function wrongSignIns(url: string, forwardedFor: readonly string[]): Promise<number[]> {
  const statuses = [];
  for (const address of forwardedFor) {
    const response = await fetch(new URL("/api/auth/sign-in/email", url), {
      method: "POST",
      headers: { "content-type": "application/json", origin: url, "x-forwarded-for": address },
      body: JSON.stringify({ email: "nobody@berth.local", password: "not-the-password" }),
    });
    statuses.push(response.status);
  }
  return statuses;
}

/** Signs in over HTTP as a browser would, then asks `me.get` with the session cookie. */
async function signedInMe(
  url: string,
  credentials: { email: string; password: string },
): Promise<{ cookie: string; workspaces: { id: string; slug: string; role: string }[] }> {
  const signIn = await postJson(url, "/api/auth/sign-in/email", credentials);
  expect(signIn.status).toBe(200);
  // The session token travels in the HttpOnly cookie only.
  expect(await signIn.clone().json()).not.toHaveProperty("token");
  const cookie = signIn.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .find((pair) => pair.startsWith("berth.session_token="));
  expect(cookie).toBeDefined();
  const me = await fetch(new URL("/api/trpc/me.get", url), { headers: { cookie: cookie ?? "" } });
  expect(me.status).toBe(200);
  const body = (await me.json()) as {
    result: { data: { json: { workspaces: { id: string; slug: string; role: string }[] } } };
  };
  return { cookie: cookie ?? "", workspaces: body.result.data.json.workspaces };
}

/** What a process of another user sees when it connects to `socketPath`: its error code. */
async function connectAsNobody(socketPath: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `require("node:net").connect(${JSON.stringify(socketPath)})
         .on("connect", () => { console.log("connected"); process.exit(0); })
         .on("error", (error) => { console.log(error.code); process.exit(0); });`,
    ],
    { uid: 65_534, gid: 65_534, stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await once(child, "exit");
  return output.trim();
}

/**
 * The embedded database listens on no TCP port (the launcher, which serves it, listens on none at
 * all). Its socket and PGlite's files are in folders only Berth's user may enter.
 */
async function expectDatabaseOnlyForBerth(launcher: LauncherProcess): Promise<void> {
  expect(await listeningTcpPorts(launcher.child.pid ?? 0)).toEqual([]);
  const socketPath = join(dataDir, "db", ".s.PGSQL.5432");
  expect((await stat(socketPath)).isSocket()).toBe(true);
  for (const folder of ["db", "pglite"])
    expect((await stat(join(dataDir, folder))).mode & 0o777, folder).toBe(0o700);
  // Root passes any mode check, so only root can prove another uid is turned away (CI runs as root).
  if (process.getuid?.() === 0) expect(await connectAsNobody(socketPath)).toBe("EACCES");
}

describe("the start command on the embedded database", () => {
  it("serves the status procedure on PGlite, refuses a second start, and recovers a stale lock", async () => {
    const first = await launch();
    const url = await untilRunning(first);

    const status = await readStatus(url);
    expect(status.database).toEqual({ engine: "PGlite" });
    expect(status.latestMigration?.name).toBe((await readMigrationFiles()).at(-1)?.name);
    expect(status.version).toBe("0.1.0");
    const lockHolder = Number((await readFile(join(dataDir, "berth.lock"), "utf8")).trim());
    expect(lockHolder).toBe(first.child.pid);
    await expectDatabaseOnlyForBerth(first);

    const second = await launch();
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(
      `Berth is already running on ${dataDir} (pid ${String(first.child.pid)})`,
    );

    // SIGKILL leaves the lockfile behind, naming a dead pid.
    await killGroup(first);
    expect(Number((await readFile(join(dataDir, "berth.lock"), "utf8")).trim())).toBe(
      first.child.pid,
    );

    const third = await launch();
    const thirdUrl = await untilRunning(third);
    const after = await readStatus(thirdUrl);
    expect(after.database.engine).toBe("PGlite");
    expect(after.latestMigration?.name).toBe(status.latestMigration?.name);

    // Every start prints the demo admin's sign-in, and it works (the account was made once).
    const signInLine = await until(() =>
      /Sign in at (\S+) as (\S+) with password (\S+)"/.exec(third.output()),
    );
    expect(/Sign in at (\S+) as (\S+) with password (\S+)"/.exec(first.output())?.slice(2)).toEqual(
      signInLine.slice(2),
    );
    const [, signInUrl = "", email = "", password = ""] = signInLine;
    expect(signInUrl).toBe(`${thirdUrl}/sign-in`);
    const me = await signedInMe(thirdUrl, { email, password });
    expect(me.workspaces).toEqual([expect.objectContaining({ slug: "demo", role: "owner" })]);

    // The README's script path: a token made with the password, then the typed client.
    const token = await createTokenWithPassword({
      url: thirdUrl,
      email,
      password,
      workspaceId: me.workspaces[0]?.id ?? "",
      name: "script",
    });
    const asScript = await createBerthClient({ url: thirdUrl, token }).me.get.query();
    expect(asScript.via).toBe("token");

    // The web server counts sign-ins under the socket's address: a client rotating
    // X-Forwarded-For (which `next start` would have believed) is still one address, limited.
    const rotated = await wrongSignIns(
      thirdUrl,
      Array.from({ length: 6 }, (_, i) => `10.0.0.${String(i + 1)}`),
    );
    expect(rotated.at(-1)).toBe(429);
  });

  it("seeds nothing in production mode, which needs BERTH_SECRET", async () => {
    const productionDir = await mkdtemp(join(tmpdir(), "berth-production-"));
    try {
      const env = {
        BERTH_DATA_DIR: productionDir,
        PORT: String(await freePort()),
        BERTH_MODE: "production",
        // As behind a reverse proxy on this machine: its X-Forwarded-For is believed.
        BERTH_TRUSTED_PROXIES: "127.0.0.1",
      };
      const refused = startLauncher(env);
      started.push(refused);
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain("- BERTH_SECRET: must be set in production mode");

      const launcher = startLauncher({ ...env, BERTH_SECRET: "p".repeat(40) });
      started.push(launcher);
      const url = await untilRunning(launcher);
      expect(launcher.output()).not.toContain("Sign in at");
      const response = await postJson(url, "/api/auth/sign-in/email", {
        email: "admin@berth.local",
        password: "anything-at-all",
      });
      expect(response.status).toBe(401);

      // Behind the trusted proxy, each forwarded client is counted apart.
      const oneClient = Array.from({ length: 6 }, () => "203.0.113.9");
      expect(await wrongSignIns(url, [...oneClient, "203.0.113.10"])).toEqual([
        401, 401, 401, 401, 401, 429, 401,
      ]);
    } finally {
      await rm(productionDir, { recursive: true, force: true });
    }
  });

  it("stops cleanly on SIGTERM and releases the lock", async () => {
    const launcher = await launch();
    await untilRunning(launcher);
    launcher.child.kill("SIGTERM");
    expect(await launcher.exited).toBe(0);
    await expect(readFile(join(dataDir, "berth.lock"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("lists every malformed variable in one message", async () => {
    const launcher = startLauncher({
      PORT: "http",
      DATABASE_URL: "mysql://x",
      LOG_LEVEL: "chatty",
    });
    started.push(launcher);
    expect(await launcher.exited).toBe(1);
    expect(launcher.output()).toContain("invalid environment (3 problems)");
    for (const name of ["PORT", "DATABASE_URL", "LOG_LEVEL"])
      expect(launcher.output()).toContain(`- ${name}:`);
  });

  it("gives the demo session a real local box, which outlives the launcher", async () => {
    const boxesDir = await mkdtemp(join(tmpdir(), "berth-start-box-"));
    const launcher = startLauncher({ BERTH_DATA_DIR: boxesDir, PORT: String(await freePort()) });
    started.push(launcher);
    try {
      const url = await untilRunning(launcher);
      const [, instanceId, sessionId = ""] =
        /"instanceId":"([^"]+)","sessionId":"([^"]+)","msg":"demo box warm"/.exec(
          launcher.output(),
        ) ?? [];
      expect(instanceId, launcher.output()).toMatch(/^box-/);

      // The web server's box services reach the box the launcher holds (boxd's entry passed in).
      const [, email = "", password = ""] =
        /Sign in at \S+ as (\S+) with password (\S+)"/.exec(
          await until(() => /Sign in at .*"/.exec(launcher.output())?.[0]),
        ) ?? [];
      const me = await signedInMe(url, { email, password });
      const workspaceId = me.workspaces[0]?.id;
      const mutate = (path: string, json: unknown) =>
        fetch(new URL(path, url), {
          method: "POST",
          headers: { "content-type": "application/json", origin: url, cookie: me.cookie },
          body: JSON.stringify({ json }),
        });
      const wrote = await mutate("/api/trpc/fs.write", {
        workspaceId,
        sessionId,
        path: "hello.txt",
        content: "from the dashboard's server",
      });
      expect(wrote.status, await wrote.clone().text()).toBe(200);
      const input = encodeURIComponent(
        JSON.stringify({ json: { workspaceId, sessionId, path: "hello.txt" } }),
      );
      // A read reaches the box too: from Berth's own page (as the browser says) it is answered,
      // from another site's it is refused.
      const readFrom = (site: string) =>
        fetch(new URL(`/api/trpc/fs.read?input=${input}`, url), {
          headers: { cookie: me.cookie, "sec-fetch-site": site },
        });
      const read = await readFrom("same-origin");
      expect(JSON.stringify(await read.json())).toContain("from the dashboard's server");
      expect((await readFrom("cross-site")).status).toBe(403);
      launcher.child.kill("SIGTERM");
      expect(await launcher.exited).toBe(0);

      const secret = (await readFile(join(boxesDir, "secret"), "utf8")).trim();
      const backend = new LocalBackend({ dataDir: boxesDir, secret, isolation: "auto" });
      const [box] = await backend.inventory();
      expect(box).toMatchObject({ instanceId, state: "running" });
      const client = await backend.connect(instanceId ?? "");
      expect(await client.exec({ argv: ["true"] })).toMatchObject({ exitCode: 0 });
      await backend.terminate(instanceId ?? "");
    } finally {
      await rm(boxesDir, { recursive: true, force: true });
    }
  });
});
