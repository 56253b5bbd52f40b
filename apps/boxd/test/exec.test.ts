import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, exitsWithin, startBoxd, type BoxdProcess } from "./boxdProcess.ts";

let boxd: BoxdProcess;
beforeAll(async () => {
  boxd = await startBoxd();
  await boxd.client.mkdir({ path: "sub" });
});
afterAll(async () => {
  await boxd.stop();
});

describe("exec", () => {
  it("runs argv without a shell, in a folder, with an environment and stdin", async () => {
    const result = await boxd.client.exec({
      argv: [
        "sh",
        "-c",
        'printf "%s|%s|%s|" "$0" "$GREETING" "$(pwd)"; cat; echo oops >&2; exit 7',
        "$HOME;*",
      ],
      cwd: "sub",
      env: { GREETING: "hello" },
      stdin: "from stdin",
    });
    expect(result).toMatchObject({
      exitCode: 7,
      signal: null,
      timedOut: false,
      stdout: `$HOME;*|hello|${boxd.root}/sub|from stdin`,
      stderr: "oops\n",
      stdoutTruncated: false,
      stderrTruncated: false,
    });
  });

  it("never hands boxd's own token to the process", async () => {
    const result = await boxd.client.exec({ argv: ["env"] });
    expect(result.stdout).not.toContain(boxd.token);
    expect(result.stdout).not.toContain("BOXD_");
  });

  it("kills the whole process group on timeout", async () => {
    const started = Date.now();
    const result = await boxd.client.exec({
      // The background sleep would outlive a kill of the shell alone.
      argv: ["sh", "-c", "sleep 30 & echo $! > sub/child.pid; wait"],
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL" });
    expect(Date.now() - started).toBeLessThan(5_000);
    const pid = Number((await boxd.client.read({ path: "sub/child.pid" })).content);
    expect(await exitsWithin(pid)).toBe(true);
  });

  it("caps captured output and flags the cut, while draining the rest", async () => {
    const result = await boxd.client.exec({
      argv: ["sh", "-c", "head -c 5000000 /dev/zero; head -c 10 /dev/zero >&2"],
      maxOutputBytes: 1000,
      encoding: "base64",
    });
    expect(result.exitCode).toBe(0);
    expect(Buffer.from(result.stdout, "base64").byteLength).toBe(1000);
    expect(result.stdoutTruncated).toBe(true);
    expect(Buffer.from(result.stderr, "base64").byteLength).toBe(10);
    expect(result.stderrTruncated).toBe(false);
  });

  it("reports a signal and an unknown command", async () => {
    const killed = await boxd.client.exec({ argv: ["sh", "-c", "kill -TERM $$"] });
    expect(killed).toMatchObject({ exitCode: null, signal: "SIGTERM", timedOut: false });
    expect(await errorCode(boxd.client.exec({ argv: ["no-such-command-berth"] }))).toBe(
      "not_found",
    );
    expect(await errorCode(boxd.client.exec({ argv: [] }))).toBe("invalid_request");
  });
});
