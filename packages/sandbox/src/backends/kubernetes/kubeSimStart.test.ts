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
import { loadAll } from "js-yaml";
import { expect, it } from "vitest";
import type { VolumeClaimTemplate } from "./allocation.ts";
import { boxPodTemplate, boxVolumeClaims } from "./boxPodTemplate.ts";
import { TOKEN_KEY, tokenSecretName } from "./boxTokenSecret.ts";
import type { PodTemplate } from "./executionProfile.ts";
import { KubeClient } from "./kubeClient.ts";
import { DEFAULT_BOXD_PORT, KubernetesBackend } from "./kubernetesBackend.ts";
import type { BoxTemplate } from "./sandboxTemplate.ts";
import { boxTemplateManifest, type BoxTemplateManifest } from "./tests/boxTemplate.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..", "..", "..");
const RBAC_FILE = join(ROOT, "deploy", "kubernetes", "rbac.yaml");
const TEMPLATE = "berth-box";
const EXTENSIONS = { group: "extensions.agents.x-k8s.io", version: "v1beta1" } as const;
const SANDBOXES = { group: "agents.x-k8s.io", version: "v1beta1", plural: "sandboxes" } as const;

type TemplateSpec = BoxTemplateManifest["spec"];

/** Polls `read` until `done` holds; the test's own timeout bounds it. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    await pause(100);
  }
}

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
    // Stored as written in deploy/ (its pod and disks; the server adds only defaults elsewhere).
    const written = boxTemplateManifest(TEMPLATE).spec;
    expect(template.spec.podTemplate).toEqual(written.podTemplate);
    expect(template.spec.volumeClaimTemplates).toEqual(written.volumeClaimTemplates);

    // The RBAC as written, stored (kube-sim does not enforce it).
    const [, role] = loadAll(readFileSync(RBAC_FILE, "utf8")) as { rules: unknown[] }[];
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const served = await rbac.readNamespacedRole({ name: "berth", namespace: "default" });
    expect(served.rules).toEqual(role?.rules);
    await core.readNamespacedServiceAccount({ name: "berth", namespace: "default" });

    // A Sandbox made from the template as Berth makes one (its pod built by Berth's overlay).
    const name = "from-template";
    const token = randomBytes(32).toString("hex");
    const secret = new V1Secret();
    secret.metadata = new V1ObjectMeta();
    secret.metadata.name = tokenSecretName(name);
    secret.stringData = { [TOKEN_KEY]: token };
    await core.createNamespacedSecret({ namespace: "default", body: secret });
    const boxTemplate: BoxTemplate = {
      name: TEMPLATE,
      podTemplate: template.spec.podTemplate as PodTemplate,
      volumeClaimTemplates: template.spec.volumeClaimTemplates as VolumeClaimTemplate[],
    };
    await custom.createNamespacedCustomObject({
      ...SANDBOXES,
      namespace: "default",
      body: {
        apiVersion: "agents.x-k8s.io/v1beta1",
        kind: "Sandbox",
        metadata: { name },
        spec: {
          podTemplate: boxPodTemplate({
            template: boxTemplate,
            profile: { template: TEMPLATE, image: "berth-boxd", resources: {} },
            identity: { kind: "box", sandboxName: name },
            boxdPort: DEFAULT_BOXD_PORT,
          }),
          volumeClaimTemplates: boxVolumeClaims(boxTemplate),
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
