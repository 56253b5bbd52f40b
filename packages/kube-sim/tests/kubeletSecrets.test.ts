/**
 * The kubelet and Secrets (issue 35, §8.6): `env[].valueFrom.secretKeyRef` and `volumes[].secret`
 * resolved from the Secret, and a pod that references a missing Secret waiting as a real kubelet
 * reports it (CreateContainerConfigError, or FailedMount and ContainerCreating) until it appears.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as k8s from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import type { RuntimeContext } from "../src/index.ts";
import { MERGE, SANDBOXES, failure, metadataOf, sandbox } from "./harness.ts";
import type { ControlledFixture } from "./kit.ts";
import { clusterFixture, eventually } from "./kit.ts";

/** A body as plain JSON, as the API sees it (client-node types bodies as classes). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function pod(name: string, container: Record<string, unknown>, volumes: unknown[] = []): k8s.V1Pod {
  return plain({
    metadata: { name },
    spec: { containers: [{ name: "main", image: "busybox", ...container }], volumes },
  }) as k8s.V1Pod;
}

function secret(name: string, data: Record<string, string>): k8s.V1Secret {
  return plain({ metadata: { name }, stringData: data }) as k8s.V1Secret;
}

const TOKEN_ENV = {
  name: "BOX_TOKEN",
  valueFrom: { secretKeyRef: { name: "box-token", key: "token" } },
};

const waitingOf = (p: k8s.V1Pod): k8s.V1ContainerStateWaiting | undefined =>
  p.status?.containerStatuses?.[0]?.state?.waiting;

describe("the kubelet and Secrets (issue 35, §8.6)", { timeout: 20_000 }, () => {
  let current: ControlledFixture | undefined;
  const folders: string[] = [];
  afterEach(async () => {
    await current?.sim.close();
    current = undefined;
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  /** A cluster whose `recorder` image records its RuntimeContext and writes its env to a file. */
  async function cluster(): Promise<{
    f: ControlledFixture;
    contexts: RuntimeContext[];
    envOf: (podName: string) => Promise<string>;
  }> {
    const out = mkdtempSync(join(tmpdir(), "kube-sim-secret-"));
    folders.push(out);
    const contexts: RuntimeContext[] = [];
    const f = await clusterFixture({
      kubelet: {
        runtimes: {
          recorder: (context) => {
            contexts.push(context);
            const file = join(out, `${context.podName}.env`);
            return {
              command: ["sh", "-c", `env > ${file}.tmp; mv ${file}.tmp ${file}; exec sleep 100000`],
            };
          },
        },
      },
    });
    current = f;
    const envOf = (podName: string): Promise<string> =>
      eventually(
        () => Promise.resolve(readOr(join(out, `${podName}.env`))),
        (text) => text !== "",
      );
    return { f, contexts, envOf };
  }

  function readOr(path: string): string {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  }

  const readPod = (f: ControlledFixture, name: string): Promise<k8s.V1Pod> =>
    f.core.readNamespacedPod({ name, namespace: "default" });

  const running = (f: ControlledFixture, name: string): Promise<k8s.V1Pod> =>
    eventually(
      () => readPod(f, name),
      (p) => p.status?.phase === "Running",
    );

  const eventsOf = async (f: ControlledFixture, name: string): Promise<k8s.CoreV1Event[]> =>
    (
      await f.core.listNamespacedEvent({
        namespace: "default",
        fieldSelector: `involvedObject.name=${name}`,
      })
    ).items;

  it("§8.6 / issue 35 secretKeyRef env gets the decoded value; a secret volume is a read-only folder of one file per key (defaultMode, or items with their own path and mode)", async () => {
    const { f, contexts, envOf } = await cluster();
    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("box-token", { token: "s3cret", "ca.crt": "CERT" }),
    });
    await f.core.createNamespacedPod({
      namespace: "default",
      body: pod(
        "box",
        {
          image: "recorder",
          env: [TOKEN_ENV, { name: "PLAIN", value: "v" }],
          volumeMounts: [
            { name: "token", mountPath: "/var/run/berth" },
            { name: "picked", mountPath: "/etc/picked" },
          ],
        },
        [
          { name: "token", secret: { secretName: "box-token", defaultMode: 0o400 } },
          {
            name: "picked",
            secret: {
              secretName: "box-token",
              items: [
                { key: "token", path: "nested/box-token" },
                { key: "ca.crt", path: "ca.pem", mode: 0o600 },
              ],
            },
          },
        ],
      ),
    });
    await running(f, "box");
    const env = await envOf("box");
    expect(env).toContain("BOX_TOKEN=s3cret\n");
    expect(env).toContain("PLAIN=v\n");
    const context = contexts.find((c) => c.podName === "box");
    const mounts = context?.mounts ?? [];
    expect(mounts.map((m) => [m.volume, m.mountPath, m.readOnly])).toEqual([
      ["token", "/var/run/berth", true],
      ["picked", "/etc/picked", true],
    ]);
    const [token, picked] = mounts.map((m) => m.hostPath);
    expect(env).toContain(`KUBE_SIM_VOLUME_TOKEN=${token ?? "?"}\n`);
    const file = (folder: string | undefined, path: string) => join(folder ?? "", path);
    expect(readdirSync(token ?? "").sort()).toEqual(["ca.crt", "token"]);
    expect(readFileSync(file(token, "token"), "utf8")).toBe("s3cret");
    expect(statSync(file(token, "token")).mode & 0o777).toBe(0o400);
    expect(readFileSync(file(picked, "nested/box-token"), "utf8")).toBe("s3cret");
    // SecretVolumeSourceDefaultMode (0644) where neither defaultMode nor the item's mode is given.
    expect(statSync(file(picked, "nested/box-token")).mode & 0o777).toBe(0o644);
    expect(readFileSync(file(picked, "ca.pem"), "utf8")).toBe("CERT");
    expect(statSync(file(picked, "ca.pem")).mode & 0o777).toBe(0o600);
    expect(readdirSync(picked ?? "").sort()).toEqual(["ca.pem", "nested"]);

    // A changed Secret reaches the volume (as the kubelet's sync does), not the started env.
    await f.core.patchNamespacedSecret(
      { name: "box-token", namespace: "default", body: { stringData: { token: "rotated" } } },
      MERGE,
    );
    await eventually(
      () => Promise.resolve(readOr(file(token, "token"))),
      (text) => text === "rotated",
    );
    expect(await envOf("box")).toContain("BOX_TOKEN=s3cret\n");
  });

  it("§8.6 / issue 35 a missing Secret for env keeps the pod Pending with CreateContainerConfigError and a Failed event; a Secret without the key says so; once the key exists the container starts", async () => {
    const { f, envOf } = await cluster();
    await f.core.createNamespacedPod({
      namespace: "default",
      body: pod("box", { image: "recorder", env: [TOKEN_ENV] }),
    });
    const waiting = await eventually(
      () => readPod(f, "box"),
      (p) => waitingOf(p)?.reason === "CreateContainerConfigError",
    );
    expect(waitingOf(waiting)).toEqual({
      reason: "CreateContainerConfigError",
      message: 'secret "box-token" not found',
    });
    expect(waiting.status?.phase).toBe("Pending");
    expect(waiting.spec?.nodeName).toBe("kube-sim-node");
    expect(waiting.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
    expect(f.sim.kubelet?.pids()).toEqual([]);
    const [failed] = await eventsOf(f, "box");
    expect(failed).toMatchObject({
      type: "Warning",
      reason: "Failed",
      message: 'Error: secret "box-token" not found',
      count: 1,
      involvedObject: {
        kind: "Pod",
        name: "box",
        namespace: "default",
        uid: waiting.metadata?.uid,
        fieldPath: "spec.containers{main}",
      },
      source: { component: "kubelet", host: "kube-sim-node" },
    });

    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("box-token", { other: "x" }),
    });
    const noKey = await eventually(
      () => readPod(f, "box"),
      (p) => waitingOf(p)?.message !== 'secret "box-token" not found',
    );
    expect(waitingOf(noKey)).toEqual({
      reason: "CreateContainerConfigError",
      message: "couldn't find key token in Secret default/box-token",
    });

    await f.core.patchNamespacedSecret(
      { name: "box-token", namespace: "default", body: { stringData: { token: "late" } } },
      MERGE,
    );
    const started = await running(f, "box");
    expect(started.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(await envOf("box")).toContain("BOX_TOKEN=late\n");
  });

  it("§8.6 / issue 35 a missing Secret for a volume is a FailedMount event and ContainerCreating; creating the Secret mounts it and starts the pod", async () => {
    const { f, contexts } = await cluster();
    await f.core.createNamespacedPod({
      namespace: "default",
      body: pod(
        "box",
        { image: "recorder", volumeMounts: [{ name: "token", mountPath: "/var/run/berth" }] },
        [{ name: "token", secret: { secretName: "box-token" } }],
      ),
    });
    const creating = await eventually(
      () => readPod(f, "box"),
      (p) => waitingOf(p) !== undefined,
    );
    expect(waitingOf(creating)).toEqual({ reason: "ContainerCreating" });
    expect(creating.status?.phase).toBe("Pending");
    const events = await eventsOf(f, "box");
    expect(events.map((e) => [e.type, e.reason, e.message])).toEqual([
      [
        "Warning",
        "FailedMount",
        'MountVolume.SetUp failed for volume "token" : secret "box-token" not found',
      ],
    ]);
    expect(events[0]?.involvedObject.fieldPath).toBeUndefined();
    expect(contexts).toEqual([]);

    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("box-token", { token: "t0ken" }),
    });
    await running(f, "box");
    const hostPath = contexts[0]?.mounts[0]?.hostPath ?? "";
    expect(readFileSync(join(hostPath, "token"), "utf8")).toBe("t0ken");
  });

  it("§8.6 / issue 35 optional references do not hold the pod: the variable is left out and the volume is empty; an items key the Secret lacks fails the mount unless optional", async () => {
    const { f, contexts, envOf } = await cluster();
    await f.core.createNamespacedPod({
      namespace: "default",
      body: pod(
        "relaxed",
        {
          image: "recorder",
          env: [
            {
              name: "MAYBE",
              valueFrom: { secretKeyRef: { name: "absent", key: "k", optional: true } },
            },
          ],
          volumeMounts: [{ name: "maybe", mountPath: "/maybe" }],
        },
        [{ name: "maybe", secret: { secretName: "absent", optional: true } }],
      ),
    });
    await running(f, "relaxed");
    expect(await envOf("relaxed")).not.toMatch(/^MAYBE=/m);
    expect(readdirSync(contexts[0]?.mounts[0]?.hostPath ?? "")).toEqual([]);

    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("partial", { a: "1" }),
    });
    await f.core.createNamespacedPod({
      namespace: "default",
      body: pod("strict", { volumeMounts: [{ name: "v", mountPath: "/v" }] }, [
        { name: "v", secret: { secretName: "partial", items: [{ key: "b", path: "b" }] } },
      ]),
    });
    await eventually(
      () => eventsOf(f, "strict"),
      (events) => events.length > 0,
    );
    expect((await eventsOf(f, "strict")).map((e) => e.message)).toEqual([
      'MountVolume.SetUp failed for volume "v" : references non-existent secret key: b',
    ]);
    expect(waitingOf(await readPod(f, "strict"))?.reason).toBe("ContainerCreating");
  });

  it("§8.6 / §9.8 / issue 35 a box token in a Secret its Sandbox owns: the pod waits for the Secret, starts with it, and deleting the Sandbox takes the Secret too", async () => {
    const { f, envOf } = await cluster();
    const owner = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("box", {
        podTemplate: {
          spec: {
            containers: [
              {
                name: "main",
                image: "recorder",
                env: [TOKEN_ENV],
                volumeMounts: [{ name: "token", mountPath: "/var/run/berth" }],
              },
            ],
            volumes: [{ name: "token", secret: { secretName: "box-token", defaultMode: 0o400 } }],
          },
        },
      }),
    })) as Record<string, unknown>;
    const creating = await eventually(
      () => readPod(f, "box"),
      (p) => waitingOf(p)?.reason === "ContainerCreating",
    );
    expect(creating.status?.phase).toBe("Pending");
    const { name, uid } = metadataOf(owner) as { name: string; uid: string };
    await f.core.createNamespacedSecret({
      namespace: "default",
      body: plain({
        metadata: {
          name: "box-token",
          ownerReferences: [
            { apiVersion: "agents.x-k8s.io/v1beta1", kind: "Sandbox", name, uid, controller: true },
          ],
        },
        stringData: { token: "hmac" },
      }) as k8s.V1Secret,
    });
    await running(f, "box");
    expect(await envOf("box")).toContain("BOX_TOKEN=hmac\n");
    await f.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: "box" });
    const gone = await eventually(
      () => failure(f.core.readNamespacedSecret({ name: "box-token", namespace: "default" })),
      (result) => result.code === 404,
    );
    expect(gone.status.reason).toBe("NotFound");
  });
});
