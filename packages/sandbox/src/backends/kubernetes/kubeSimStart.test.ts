/**
 * `pnpm kube-sim --kubeconfig F` (issue 37): the root script's own command starts a simulated
 * cluster with the agent-sandbox kinds, Berth's RBAC and SandboxTemplate applied from deploy/,
 * and boxd as the process of the template's image; a Sandbox made from the template serves boxd's
 * health check at its pod IP, Berth's adapter makes a box there, and SIGTERM stops it all (exit 0).
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as pause } from "node:timers/promises";
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
  V1ObjectMeta,
  V1Secret,
} from "@kubernetes/client-node";
import { load, loadAll } from "js-yaml";
import { expect, it } from "vitest";
import { boxPodTemplate } from "./boxPodTemplate.ts";
import { KubeClient } from "./kubeClient.ts";
import { DEFAULT_BOXD_PORT, KubernetesBackend } from "./kubernetesBackend.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..", "..", "..");
const TEMPLATE_FILE = join(ROOT, "deploy", "kubernetes", "sandbox-template.yaml");
const RBAC_FILE = join(ROOT, "deploy", "kubernetes", "rbac.yaml");
const TEMPLATE = "berth-box";
const EXTENSIONS = { group: "extensions.agents.x-k8s.io", version: "v1beta1" } as const;
const SANDBOXES = { group: "agents.x-k8s.io", version: "v1beta1", plural: "sandboxes" } as const;

interface Container {
  name: string;
  image: string;
  env: { name: string; value?: string }[];
  [key: string]: unknown;
}
interface TemplateSpec {
  podTemplate: { metadata: unknown; spec: { containers: Container[] } & Record<string, unknown> };
  volumeClaimTemplates: unknown[];
}

function templateManifest(): { spec: TemplateSpec } {
  return load(readFileSync(TEMPLATE_FILE, "utf8")) as { spec: TemplateSpec };
}

/** Polls `read` until `done` holds; the test's own timeout bounds it. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    await pause(100);
  }
}

it("the SandboxTemplate manifest is the pod Berth builds for a box, minus what it adds per box", () => {
  const built = boxPodTemplate({
    profile: { template: TEMPLATE, image: "berth-boxd", resources: {} },
    sandboxName: "any",
    boxdPort: DEFAULT_BOXD_PORT,
  });
  const [container] = built.spec.containers as unknown as Container[];
  if (container === undefined) throw new Error("no container");
  // The template asks for no resources (the cluster's admin sets them) and leaves out the
  // per-box instance id.
  const shape: Partial<Container> = { ...container };
  delete shape.resources;
  const { spec } = templateManifest();
  expect(spec.podTemplate.metadata).toEqual(built.metadata);
  expect(spec.podTemplate.spec.containers).toEqual([
    { ...shape, env: container.env.filter((e) => e.name !== "BOXD_INSTANCE_ID") },
  ]);
  // The token volume names each box's own Secret, so only Berth can add it.
  expect(spec.podTemplate.spec.volumes).toBeUndefined();
});

it("`pnpm kube-sim --kubeconfig F` serves the CRDs and Berth's template and RBAC; a Sandbox from the template runs boxd; SIGTERM exits 0", async () => {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const [program, ...args] = (scripts["kube-sim"] ?? "").split(" ");
  expect(program).toBe("node");
  const dir = mkdtempSync(join(tmpdir(), "kube-sim-start-"));
  const kubeconfig = join(dir, "kube.yaml");
  const child = spawn(process.execPath, [...args, "--kubeconfig", kubeconfig], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    let out = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("Stop with")) resolve();
      });
      child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
      void exited.then((code) => {
        reject(new Error(`kube-sim exited early with ${String(code)}: ${out}`));
      });
    });
    expect(out).toContain(`applied SandboxTemplate default/${TEMPLATE}\n`);
    expect(out).toContain(`KUBECONFIG=${kubeconfig}`);
    expect(out).toContain("BERTH_ALLOW_UNISOLATED=1");

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const core = kc.makeApiClient(CoreV1Api);
    // The four agent-sandbox kinds are served (each answers a list).
    for (const [group, plural] of [
      [SANDBOXES.group, "sandboxes"],
      [EXTENSIONS.group, "sandboxclaims"],
      [EXTENSIONS.group, "sandboxwarmpools"],
    ] as const) {
      const list = (await custom.listNamespacedCustomObject({
        group,
        version: "v1beta1",
        namespace: "default",
        plural,
      })) as { items: unknown[] };
      expect(list.items).toEqual([]);
    }
    const templates = (await custom.listNamespacedCustomObject({
      ...EXTENSIONS,
      namespace: "default",
      plural: "sandboxtemplates",
    })) as { items: { metadata: { name: string }; spec: TemplateSpec }[] };
    expect(templates.items.map((t) => t.metadata.name)).toEqual([TEMPLATE]);
    const [template] = templates.items;
    if (template === undefined) throw new Error("no template");

    // The RBAC as written, stored (kube-sim does not enforce it).
    const [, role] = loadAll(readFileSync(RBAC_FILE, "utf8")) as { rules: unknown[] }[];
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const served = await rbac.readNamespacedRole({ name: "berth", namespace: "default" });
    expect(served.rules).toEqual(role?.rules);
    await core.readNamespacedServiceAccount({ name: "berth", namespace: "default" });

    // A Sandbox made from the template as Berth makes one: plus the instance id and the token.
    const name = "from-template";
    const token = randomBytes(32).toString("hex");
    const secret = new V1Secret();
    secret.metadata = new V1ObjectMeta();
    secret.metadata.name = `${name}-token`;
    secret.stringData = { token };
    await core.createNamespacedSecret({ namespace: "default", body: secret });
    const { podTemplate, volumeClaimTemplates } = template.spec;
    const containers = podTemplate.spec.containers.map((c) => ({
      ...c,
      env: [...c.env, { name: "BOXD_INSTANCE_ID", value: name }],
    }));
    await custom.createNamespacedCustomObject({
      ...SANDBOXES,
      namespace: "default",
      body: {
        apiVersion: "agents.x-k8s.io/v1beta1",
        kind: "Sandbox",
        metadata: { name },
        spec: {
          podTemplate: {
            ...podTemplate,
            spec: {
              ...podTemplate.spec,
              containers,
              volumes: [{ name: "box-token", secret: { secretName: `${name}-token` } }],
            },
          },
          volumeClaimTemplates,
        },
      },
    });
    const ip = await until(
      async () => {
        const sandbox = (await custom.getNamespacedCustomObject({
          ...SANDBOXES,
          namespace: "default",
          name,
        })) as { status?: { podIPs?: string[] } };
        return sandbox.status?.podIPs?.[0] ?? "";
      },
      (podIP) => podIP !== "",
    );
    const health = await until(
      async () => {
        const response = await fetch(`http://${ip}:${String(DEFAULT_BOXD_PORT)}/healthz`);
        return { status: response.status, body: await response.json() };
      },
      (answer) => answer.status === 200,
    );
    expect(health.body).toEqual({ ok: true, instanceId: name });

    // Berth's own adapter, given only the kubeconfig file, makes a box there that serves.
    const backend = new KubernetesBackend({
      client: new KubeClient({ source: { kind: "file", path: kubeconfig } }),
      installationId: () => Promise.resolve(randomUUID()),
      secret: randomBytes(24).toString("hex"),
      pollIntervalMs: 50,
    });
    const { instanceId } = await backend.create({
      metadata: {
        workspaceId: randomUUID(),
        leaseId: randomUUID(),
        sandboxGroupId: randomUUID(),
        epoch: 1,
        allocationId: randomUUID(),
      },
      profile: { template: TEMPLATE, image: "berth-boxd", resources: {} },
    });
    const box = await backend.ready(instanceId, { timeoutMs: 20_000 });
    expect(await box.health()).toEqual({ ok: true, instanceId });

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out).toContain("kube-sim stopped\n");
    // Its pods went with it; the kubeconfig the user asked for stays.
    await expect(fetch(`http://${ip}:${String(DEFAULT_BOXD_PORT)}/healthz`)).rejects.toThrow();
    expect(readFileSync(kubeconfig, "utf8")).toContain("insecure-skip-tls-verify: true");
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
