import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAgentArgs } from "../src/agent/agentArgs.ts";
import { readAgentEnv } from "../src/agent/env.ts";
import { AGENT_EXIT, AgentExit } from "../src/agent/exitCodes.ts";

const env = readAgentEnv({ HOME: "/home/someone" });
let root = "";
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "agent-args-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function refusal(argv: string[]): string {
  try {
    parseAgentArgs(argv, env);
  } catch (error) {
    if (!(error instanceof AgentExit)) throw error;
    expect(error.code).toBe(AGENT_EXIT.usage);
    return error.message;
  }
  throw new Error("accepted");
}

describe("boxd agent's command line", () => {
  it("names the missing or wrong flag", () => {
    expect(refusal(["--root", root])).toMatch(/--server URL is required/);
    expect(refusal(["--server", "ftp://berth", "--root", root])).toMatch(
      /--server must be an http/,
    );
    expect(refusal(["--server", "not a url", "--root", root])).toMatch(/--server must be an http/);
    expect(refusal(["--server", "http://berth"])).toMatch(/--root DIR is required/);
    expect(refusal(["--server", "http://berth", "--root", join(root, "nope")])).toMatch(
      /--root .*nope is not an existing folder/,
    );
    expect(refusal(["--server", "http://berth", "--root", root, "--bogus"])).toMatch(/--bogus/);
    expect(refusal(["--server", "http://berth", "--root", root, "--enroll", ""])).toMatch(
      /--enroll/,
    );
    expect(refusal(["--server", "http://berth", "--root", root, "extra"])).toMatch(/extra/);
  });

  it("defaults the state folder from XDG_CONFIG_HOME, else HOME", () => {
    const argv = ["--server", "https://berth.example/base/", "--root", root, "--enroll", "c1"];
    expect(parseAgentArgs(argv, env)).toEqual({
      server: "https://berth.example/base",
      root,
      enroll: "c1",
      name: undefined,
      stateDir: "/home/someone/.config/berth-agent",
    });
    const xdg = readAgentEnv({ HOME: "/home/someone", XDG_CONFIG_HOME: "/xdg" });
    expect(parseAgentArgs(argv, xdg).stateDir).toBe("/xdg/berth-agent");
    expect(
      parseAgentArgs([...argv, "--state-dir", "/state", "--name", "laptop"], readAgentEnv({})),
    ).toMatchObject({ stateDir: "/state", name: "laptop" });
    expect(() => parseAgentArgs(argv, readAgentEnv({}))).toThrow(/--state-dir DIR is required/);
  });
});
