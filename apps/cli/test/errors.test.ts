import { createTokenWithPassword } from "@berth/client";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/runCli.ts";
import { useServedApi } from "./support/servedApi.ts";

// What scripts rely on: each failure's exit code, and a message that says what to do next.

const served = useServedApi();

interface ErrorDocument {
  error: { code: string; reason: string; exitCode: number; message: string; hint: string };
}

describe("berth's exit codes", () => {
  it("3 for a refused token and when not signed in, each telling to log in", async () => {
    const refused = await served.current.berth(["sessions"], {
      env: { BERTH_TOKEN: "berth_tok_not-a-real-token" },
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("berth login");
    expect(refused.stderr).not.toContain("berth_tok_not-a-real-token");

    const json = await served.current.berth(["sessions", "--json"], {
      env: { BERTH_TOKEN: "berth_tok_not-a-real-token" },
    });
    expect((json.json() as ErrorDocument).error).toMatchObject({
      exitCode: 3,
      reason: "signedOut",
    });

    const signedOut = await runCli(["ls"], {
      env: { BERTH_CONFIG_DIR: await served.current.configDir() },
    });
    expect(signedOut.code).toBe(3);
    expect(signedOut.stderr).toContain("berth login");
    const wrongPassword = await runCli(
      ["login", "--url", served.current.url, "--email", served.current.email, "--password-stdin"],
      { env: { BERTH_CONFIG_DIR: await served.current.configDir() }, input: "not-the-password\n" },
    );
    expect(wrongPassword.code).toBe(3);
    expect(wrongPassword.stderr).toContain("wrong email or password");
  });

  it("6 for a blocked lease, naming the admin's restore", async () => {
    const { db, workspaceId } = served.current;
    const sessionId = await served.current.newSession();
    const session = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
    // A box whose archive could not be restored: acquires answer blocked until an admin acts.
    await db.sandboxLease.create({
      data: {
        workspaceId,
        sandboxGroupId: session.sandboxGroupId,
        backend: "local",
        expiresAt: new Date(),
        epoch: 4,
        restoreStatus: "unrecoverable",
      },
    });
    const blocked = await served.current.berth(["ls", "-s", sessionId]);
    expect(blocked.code).toBe(6);
    expect(blocked.stderr).toContain(`berth archives restore <revision> -s ${sessionId}`);
    const json = await served.current.berth(["exec", "-s", sessionId, "--json", "--", "true"]);
    expect(json.code).toBe(6);
    expect((json.json() as ErrorDocument).error).toMatchObject({ code: "blocked", exitCode: 6 });
  });

  it("5 for a missing file or session; 2 when the session is ambiguous", async () => {
    const sessionId = await served.current.newSession();
    const missing = await served.current.berth(["cat", "nope.txt", "-s", sessionId]);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain(`berth ls -s ${sessionId}`);
    const noSession = await served.current.berth(["ls", "-s", crypto.randomUUID()]);
    expect(noSession.code).toBe(5);
    expect(noSession.stderr).toContain("berth sessions");
    const localMissing = await served.current.berth([
      "put",
      "/nonexistent/file",
      "x",
      "-s",
      sessionId,
    ]);
    expect(localMissing.code).toBe(5);

    // This workspace has several sessions by now: which one must be said.
    const ambiguous = await served.current.berth(["ls"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("-s <session-id>");
  });

  it("2 for bad usage: unknown command or option, missing argument, refused input", async () => {
    for (const args of [
      ["frobnicate"],
      ["ls", "--bogus"],
      ["cat"],
      ["git", "commit"],
      ["exec", "ls", "-la"],
      ["ls", "-s", "not-a-uuid"],
      [],
    ]) {
      const run = await served.current.berth(args);
      expect(run.code, `berth ${args.join(" ")}: ${run.stderr}`).toBe(2);
      expect(run.stdout).toBe("");
    }
    // A path outside the workspace is refused as bad input, not for want of a role.
    const sessionId = await served.current.newSession();
    const outside = await served.current.berth(["cat", "../../etc/passwd", "-s", sessionId]);
    expect(outside.code, outside.stderr).toBe(2);
    expect(outside.stderr).toContain("must stay inside it");
    expect(outside.stderr).not.toContain("Ask a workspace admin");

    const json = await served.current.berth(["cat", "--json"]);
    expect(json.code).toBe(2);
    expect((json.json() as ErrorDocument).error).toMatchObject({ reason: "usage", exitCode: 2 });
    expect((await served.current.berth(["--help"])).code).toBe(0);
  });

  it("4 when the token's role does not allow it", async () => {
    const { url, email, password, workspaceId } = served.current;
    // Signed in with the password: an API token cannot create tokens.
    const memberToken = await createTokenWithPassword({
      url,
      email,
      password,
      workspaceId,
      name: "member script",
      role: "member",
    });
    const sessionId = await served.current.newSession();
    const refused = await served.current.berth(
      ["archives", "restore", "--fresh", "-s", sessionId],
      {
        env: { BERTH_TOKEN: memberToken },
      },
    );
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("admin");
  });

  it("8 when the server cannot be reached", async () => {
    const down = await served.current.berth(["sessions"], {
      env: { BERTH_URL: "http://127.0.0.1:9" },
    });
    expect(down.code).toBe(8);
    expect(down.stderr).toContain("http://127.0.0.1:9");
  });
});
