import { expect, it } from "vitest";
import { commandRuntime, expandVariables } from "./commandRuntime.ts";

it("expands $(VAR) as a kubelet does: $$ is a literal $, unset or unclosed references stay as written", () => {
  const env = { A: "x", B_1: "y" };
  expect(expandVariables("$(A)/$(B_1)", env)).toBe("x/y");
  expect(expandVariables("$$(A) $(MISSING) $(A", env)).toBe("$(A) $(MISSING) $(A");
});

it("a command runtime points a process at the host folders behind the pod's mounts", () => {
  const runtime = commandRuntime({
    command: ["node", "$(ROOT)/main.mjs"],
    env: { ROOT: "$(KUBE_SIM_VOLUME_WORKSPACE)", TOKEN: "$(KUBE_SIM_VOLUME_BOX_TOKEN)/token" },
    cwd: "/repo",
  });
  const started = runtime({
    env: { KUBE_SIM_VOLUME_WORKSPACE: "/data/ws", KUBE_SIM_VOLUME_BOX_TOKEN: "/data/t" },
  } as unknown as Parameters<typeof runtime>[0]);
  expect(started).toEqual({
    command: ["node", "/data/ws/main.mjs"],
    env: { ROOT: "/data/ws", TOKEN: "/data/t/token" },
    cwd: "/repo",
  });
});
