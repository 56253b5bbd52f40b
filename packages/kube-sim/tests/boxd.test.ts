/**
 * The key test (§8.6): a Sandbox whose runtime map starts a real boxd is reachable at its
 * podIP, with the pod's uid (given by the downward API) as its bearer token, serving the PVC's
 * folder. boxd is started by path, as kube-sim imports no @berth package.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { RuntimeContext } from "../src/index.ts";
import { SANDBOXES, sandbox } from "./harness.ts";
import type { ControlledFixture } from "./kit.ts";
import { alive, clusterFixture, conditionOf, eventually, getSandbox } from "./kit.ts";

const BOXD = join(import.meta.dirname, "..", "..", "..", "apps", "boxd");
const BOXD_PORT = 7070;

let current: ControlledFixture | undefined;
afterEach(async () => {
  await current?.sim.close();
  current = undefined;
});

function boxdRuntime(context: RuntimeContext): {
  command: string[];
  env: Record<string, string>;
  cwd: string;
} {
  const workspace = context.mounts.find((m) => m.mountPath === "/workspace");
  return {
    command: [process.execPath, "--import", "tsx", join(BOXD, "src", "main.ts")],
    // BOXD_TOKEN and BOXD_HOST come from the pod's env (downward API); the rest is the runtime's.
    env: {
      BOXD_INSTANCE_ID: context.podName,
      BOXD_ROOT: workspace?.hostPath ?? "",
      BOXD_PORT: String(BOXD_PORT),
    },
    cwd: BOXD,
  };
}

async function list(
  ip: string,
  token: string | undefined,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://${ip}:${String(BOXD_PORT)}/v1/files/list`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ path: "." }),
  });
  return { status: response.status, text: await response.text() };
}

it("§8.6 / issue 17 a Sandbox running a real boxd answers at its podIP with the pod uid as token, serving its PVC folder", async () => {
  const f = await clusterFixture({ kubelet: { runtimes: { "berth/boxd": boxdRuntime } } });
  current = f;
  await f.custom.createNamespacedCustomObject({
    ...SANDBOXES,
    body: sandbox("boxed", {
      podTemplate: {
        spec: {
          containers: [
            {
              name: "boxd",
              image: "berth/boxd:dev",
              env: [
                { name: "BOXD_TOKEN", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
                { name: "BOXD_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
              ],
              volumeMounts: [{ name: "workspace", mountPath: "/workspace" }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        { metadata: { name: "workspace" }, spec: { accessModes: ["ReadWriteOnce"] } },
      ],
    }),
  });
  const ready = await eventually(
    () => getSandbox(f, "boxed"),
    (sb) => conditionOf(sb, "Ready")?.status === "True",
  );
  const ip = ready.status?.podIPs?.[0] ?? "";
  const pod = await f.core.readNamespacedPod({ name: "boxed", namespace: "default" });
  const uid = pod.metadata?.uid ?? "";
  const folder = f.sim.kubelet?.claimFolder("default", "workspace-boxed") ?? "";
  writeFileSync(join(folder, "hello.txt"), "hi\n");

  const answer = await eventually(
    () => list(ip, uid),
    (r) => r.status === 200,
    20_000,
  );
  expect(answer.text).toContain("hello.txt");
  expect((await list(ip, "x".repeat(36))).status).toBe(401);
  expect((await list(ip, undefined)).status).toBe(401);
  // Bound to its own address only: the host's loopback address has no boxd.
  await expect(list("127.0.0.1", uid)).rejects.toThrow();

  const pids = f.sim.kubelet?.pids() ?? [];
  await f.sim.close();
  current = undefined;
  expect(pids.filter(alive)).toEqual([]);
}, 30_000);
