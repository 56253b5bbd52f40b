// Issue 37, configuration: BERTH_BACKEND=kubernetes is accepted (with the SandboxTemplate it needs,
// else refused naming BERTH_KUBE_TEMPLATE), and backendsFromEnv builds the Kubernetes backend
// beside local from KUBECONFIG, BERTH_KUBE_NAMESPACE and BERTH_KUBE_TEMPLATE — the one
// construction api, worker and launcher share. kube-sim over real HTTP (its kubelet runs boxd),
// reached through a kubeconfig file as an operator would write it.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startKubeSim, type KubeSim } from "@berth/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendsFromEnv } from "../backends/backendsFromEnv.ts";
import { BOXD_TEST_IMAGE, boxdRuntimes } from "../backends/kubernetes/tests/boxdRuntime.ts";
import { applyBoxTemplate } from "../backends/kubernetes/tests/boxTemplate.ts";
import { sandboxEnvSchema } from "../env.ts";
import { TEST_BOX_SECRET, tempDataDir } from "./spawnerFixture.ts";

let sim: KubeSim;
let dir = "";
let kubeconfig = "";
let dataDir = "";
const installationId = randomUUID();

beforeAll(async () => {
  sim = await startKubeSim({ controller: true, kubelet: { runtimes: boxdRuntimes } });
  await applyBoxTemplate(sim.kubeConfig(), "berth-box");
  dir = await mkdtemp(join(tmpdir(), "berth-kube-config-"));
  kubeconfig = join(dir, "config");
  await writeFile(kubeconfig, sim.kubeConfig());
  dataDir = await tempDataDir();
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

/** Both backends' settings as a process holding BERTH_SECRET passes them. */
function built(env: Record<string, string>) {
  return backendsFromEnv({
    env: sandboxEnvSchema.parse(env),
    local: {
      dataDir,
      secret: TEST_BOX_SECRET,
      isolation: "auto",
      installationId: () => Promise.resolve(installationId),
    },
    kubernetes: { secret: TEST_BOX_SECRET, installationId: () => Promise.resolve(installationId) },
  });
}

describe("the env", () => {
  it("accepts BERTH_BACKEND=kubernetes with its template", () => {
    const env = sandboxEnvSchema.parse({
      BERTH_BACKEND: "kubernetes",
      KUBECONFIG: "/etc/berth/kubeconfig",
      BERTH_KUBE_NAMESPACE: "berth",
      BERTH_KUBE_TEMPLATE: "berth-box",
    });
    expect(env).toMatchObject({
      BERTH_BACKEND: "kubernetes",
      KUBECONFIG: "/etc/berth/kubeconfig",
      BERTH_KUBE_NAMESPACE: "berth",
      BERTH_KUBE_TEMPLATE: "berth-box",
      BERTH_KUBE_IMAGE: "berth-boxd",
    });
  });

  it("refuses BERTH_BACKEND=kubernetes without a template, naming BERTH_KUBE_TEMPLATE", () => {
    const parsed = sandboxEnvSchema.safeParse({ BERTH_BACKEND: "kubernetes" });
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([["BERTH_KUBE_TEMPLATE"]]);
    expect(parsed.error?.issues[0]?.message).toMatch(
      /^must be set when BERTH_BACKEND=kubernetes: .*SandboxTemplate/,
    );
  });

  it("refuses a namespace that is no DNS-1123 label", () => {
    const parsed = sandboxEnvSchema.safeParse({ BERTH_KUBE_NAMESPACE: "Berth_NS" });
    expect(parsed.error?.issues).toMatchObject([
      { path: ["BERTH_KUBE_NAMESPACE"], message: "must be a DNS-1123 label, e.g. berth" },
    ]);
  });
});

describe("backendsFromEnv", () => {
  it("configures only local by default", () => {
    const { registry, kubernetes } = built({});
    expect(registry.kinds()).toEqual(["local"]);
    expect(kubernetes).toBeUndefined();
  });

  it("BERTH_BACKEND=kubernetes builds both: a Kubernetes box made from the template, on the cluster KUBECONFIG names", async () => {
    const { registry, local, kubernetes } = built({
      BERTH_BACKEND: "kubernetes",
      KUBECONFIG: kubeconfig,
      BERTH_KUBE_TEMPLATE: "berth-box",
      BERTH_KUBE_IMAGE: BOXD_TEST_IMAGE,
      BERTH_ALLOW_UNISOLATED: "1",
    });
    expect(registry.kinds()).toEqual(["local", "kubernetes"]);
    expect(registry.backendFor({ backend: "local" })).toBe(local);
    expect(registry.backendFor({ backend: "kubernetes" })).toBe(kubernetes);
    const profile = registry.profileFor({ backend: "kubernetes" });
    expect(profile).toEqual({ template: "berth-box", image: BOXD_TEST_IMAGE, resources: {} });

    // The backend works the cluster: a box made with that profile serves boxd.
    const backend = registry.backendFor({ backend: "kubernetes" });
    const { instanceId, confinement } = await backend.create({
      metadata: {
        workspaceId: randomUUID(),
        leaseId: randomUUID(),
        sandboxGroupId: randomUUID(),
        epoch: 1,
        allocationId: randomUUID(),
      },
      profile,
    });
    const client = await backend.ready(instanceId, { timeoutMs: 30_000 });
    expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
    const listed = (await backend.inventory()).find((box) => box.instanceId === instanceId);
    expect(listed?.metadata.installationId).toBe(installationId);
    // kube-sim's pods are host processes: recorded and listed as unisolated, on the host's network.
    expect([confinement.isolation, confinement.network]).toEqual(["none", "host"]);
    expect([listed?.isolation, listed?.network]).toEqual(["none", "host"]);
    await backend.terminate(instanceId);
  });

  it("a template alone configures kubernetes beside the local default, in BERTH_KUBE_NAMESPACE", async () => {
    const { registry, kubernetes } = built({
      KUBECONFIG: kubeconfig,
      BERTH_KUBE_TEMPLATE: "berth-box",
      BERTH_KUBE_NAMESPACE: "berth-boxes",
      BERTH_ALLOW_UNISOLATED: "1",
    });
    expect(registry.kinds()).toEqual(["local", "kubernetes"]);
    const before = sim.requests.filter({ resource: "sandboxes" }).length;
    await kubernetes?.inventory();
    const lists = sim.requests.filter({ resource: "sandboxes" }).slice(before);
    expect(lists.map((request) => request.namespace)).toEqual(["berth-boxes"]);
  });

  it("kube-sim's cluster without BERTH_ALLOW_UNISOLATED=1 stops the start, saying what to set", () => {
    expect(() =>
      built({
        BERTH_BACKEND: "kubernetes",
        KUBECONFIG: kubeconfig,
        BERTH_KUBE_TEMPLATE: "berth-box",
      }),
    ).toThrow(
      /would run unisolated \(the cluster is kube-sim, whose pods are host processes\): set BERTH_ALLOW_UNISOLATED=1/,
    );
    // Said outright, any cluster counts as unisolated; said otherwise, kube-sim counts as isolated.
    expect(() =>
      built({ KUBECONFIG: kubeconfig, BERTH_KUBE_TEMPLATE: "b", BERTH_KUBE_ISOLATION: "none" }),
    ).toThrow(/\(BERTH_KUBE_ISOLATION=none\)/);
    expect(
      built({ KUBECONFIG: kubeconfig, BERTH_KUBE_TEMPLATE: "b", BERTH_KUBE_ISOLATION: "pod" })
        .kubernetes,
    ).toBeDefined();
  });

  it("a kubeconfig that cannot be loaded stops the start, saying what to set", () => {
    expect(() =>
      built({
        BERTH_BACKEND: "kubernetes",
        KUBECONFIG: join(dir, "missing"),
        BERTH_KUBE_TEMPLATE: "berth-box",
      }),
    ).toThrow(
      /kubernetes backend cannot be configured: .*set KUBECONFIG to a readable kubeconfig file/,
    );
  });

  it("without KUBECONFIG outside a pod, says to set it or run in a pod", () => {
    expect(() => built({ BERTH_BACKEND: "kubernetes", BERTH_KUBE_TEMPLATE: "berth-box" })).toThrow(
      /no service account token .*set KUBECONFIG to a kubeconfig file, or run Berth in a pod with a service account/,
    );
  });
});
