import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { spawn, type IPty } from "node-pty";
import { describe, expect, it } from "vitest";
import { cliPath } from "./support/runCli.ts";
import { useServedApi } from "./support/servedApi.ts";

// `berth terminal` in a real pseudo-terminal: raw keystrokes in, the remote shell's output out,
// the local window size forwarded, a dropped connection resumed without losing or repeating.

const served = useServedApi();

/** Everything the pseudo-terminal printed so far, with a way to wait for more. */
class Screen {
  text = "";
  #exit: Promise<number>;

  constructor(readonly pty: IPty) {
    pty.onData((data) => {
      this.text += data;
    });
    this.#exit = new Promise((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  }

  /** Waits until the output (after `from`) matches; polling the buffer is all it does. */
  async waitFor(pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const match = this.text.slice(from).match(pattern);
      if (match !== null) return match;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${this.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  exited(): Promise<number> {
    return this.#exit;
  }
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

/** `berth …args` in a pseudo-terminal of its own (so stdin, stdout and stderr are TTYs). */
async function berthInPty(args: readonly string[], env: Record<string, string>): Promise<Screen> {
  return new Screen(
    spawn(process.execPath, [cliPath, ...args], {
      name: "xterm",
      cols: 120,
      rows: 24,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: await served.current.configDir(),
        BERTH_CONFIG_DIR: await served.current.configDir(),
        ...env,
      },
    }),
  );
}

describe("berth in a terminal", () => {
  it("attaches raw, forwards size, resumes after a dropped connection, exits with the shell", async () => {
    const world = served.current;
    const sessionId = await world.newSession();
    // A shell runs the CLI, so the test can see the local terminal's settings before and after.
    const script = `stty -g; "${process.execPath}" "${cliPath}" terminal -s ${sessionId}; echo "berth-exit=$?"; stty -g`;
    const pty = spawn("/bin/sh", ["-c", script], {
      name: "xterm",
      cols: 80,
      rows: 24,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: await world.configDir(),
        BERTH_CONFIG_DIR: await world.configDir(),
        BERTH_URL: world.url,
        BERTH_TOKEN: world.token,
      },
    });
    const screen = new Screen(pty);
    const [, before] = await screen.waitFor(/^([0-9a-f:]+)\r?\n/);
    await screen.waitFor(/\[berth\] terminal \S+/);

    pty.write("echo hi-$((40+2))\r");
    await screen.waitFor(/hi-42/);

    pty.resize(100, 40);
    const sized = screen.text.length;
    pty.write("stty size\r");
    await screen.waitFor(/40 100\r*\n/, sized);

    // The command's own echo proves it reached the shell; its output comes while the server is down.
    pty.write("sleep 1; echo late-$((2+3))\r");
    await screen.waitFor(/sleep 1; echo late-\$\(\(2\+3\)\)/);
    await world.restartHttp({ downMs: 1500 });
    // Printed while no connection was up: only the resumed stream can bring it.
    expect(screen.text).not.toContain("late-5");
    pty.write("echo after-$((3+4))\r");
    await screen.waitFor(/after-7/);
    await screen.waitFor(/late-5/);
    expect(count(screen.text, "late-5")).toBe(1);
    expect(count(screen.text, "after-7")).toBe(1);
    expect(count(screen.text, "hi-42")).toBe(1);

    pty.write("exit\r");
    const [, code] = await screen.waitFor(/berth-exit=(\d+)/);
    expect(code).toBe("0");
    const [, after] = await screen.waitFor(/berth-exit=\d+\r?\n([0-9a-f:]+)\r?\n/);
    // The local terminal is back as it was (raw mode undone).
    expect(after).toBe(before);
    expect(await screen.exited()).toBe(0);
  });

  it("asks for the password without echoing it; draws progress bars when stderr is a terminal", async () => {
    const world = served.current;
    const configDir = await world.configDir();
    const login = await berthInPty(["login", "--url", world.url, "--email", world.email], {
      BERTH_CONFIG_DIR: configDir,
    });
    await login.waitFor(/Password: /);
    login.pty.write(`${world.password}\r`);
    expect(await login.exited()).toBe(0);
    expect(login.text).toContain(`Signed in to ${world.url} as ${world.email}`);
    expect(login.text).not.toContain(world.password);

    const local = join(configDir, "big.bin");
    await writeFile(local, randomBytes(3 * 1024 * 1024));
    const sessionId = await world.newSession();
    const put = await berthInPty(["put", local, "big.bin", "-s", sessionId], {
      BERTH_CONFIG_DIR: configDir,
    });
    expect(await put.exited(), put.text).toBe(0);
    expect(put.text).toMatch(/put big\.bin \[[=-]+\] 100% 3\.0 MiB\/3\.0 MiB/);
    expect(put.text).toContain("big.bin: 3.0 MiB uploaded");

    // The API reports a capture's progress on the session's event stream; the bar follows it.
    const capture = await berthInPty(["archives", "capture", "-s", sessionId], {
      BERTH_CONFIG_DIR: configDir,
    });
    expect(await capture.exited(), capture.text).toBe(0);
    expect(capture.text).toMatch(/capture: capturing .*100%/);
    expect(capture.text).toMatch(/Captured [0-9a-f]{64} \(generation \d+\)/);
  });

  it("Ctrl-] detaches leaving the shell running; --id reattaches to it", async () => {
    const world = served.current;
    const sessionId = await world.newSession();
    const env = { BERTH_URL: world.url, BERTH_TOKEN: world.token };
    const first = await berthInPty(["terminal", "-s", sessionId], env);
    const [, terminalId] = await first.waitFor(/\[berth\] terminal (\S+)/);
    first.pty.write("export MARK=kept-$((6*7))\r");
    await first.waitFor(/export MARK=kept-\$\(\(6\*7\)\)\r*\n/);
    first.pty.write("\u001D");
    expect(await first.exited()).toBe(0);
    expect(first.text).toContain(`berth terminal --id ${terminalId ?? ""} -s ${sessionId}`);

    const again = await berthInPty(["terminal", "--id", terminalId ?? "", "-s", sessionId], env);
    await again.waitFor(/\[berth\] terminal /);
    // Reattached from the start of the box's replay buffer: the earlier command shows again.
    await again.waitFor(/export MARK=kept/);
    again.pty.write("echo $MARK\r");
    await again.waitFor(/kept-42/);
    again.pty.write("exit 3\r");
    expect(await again.exited()).toBe(3);
  });
});
