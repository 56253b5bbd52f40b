import { describe, expect, it } from "vitest";
import {
  allocateSandbox,
  allocationScope,
  readAllocation,
  type AllocationRequest,
} from "./allocation.ts";
import { AllocationInputError, AllocationRefusedError } from "./allocationErrors.ts";
import { ALLOCATION_ANNOTATIONS, LABELS, POD_TEMPLATE_HASH_ANNOTATION } from "./berthKeys.ts";
import { executionProfileFingerprint, podTemplateHash } from "./executionProfile.ts";
import { toBackendError } from "./kubeBackendErrors.ts";
import { KubeError } from "./kubeErrors.ts";
import { SANDBOX, type KubeObject } from "./kubeObjects.ts";
import { installationSelector, readSandboxIdentity } from "./sandboxLabels.ts";
import { sandboxNameFor, SandboxNameError } from "./sandboxNames.ts";
import { rejectionOf, simClient, type SimClient } from "./tests/simClient.ts";

const GROUP = "0b9f6c1e-2d3a-4b5c-8d7e-6f5a4b3c2d1e";
const WORKSPACE = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9";
const LEASE = "c0ffee00-1234-4abc-8def-0123456789ab";
const ALLOCATION = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d";
const SANDBOX_NAME = sandboxNameFor({ sandboxGroupId: GROUP, allocationId: ALLOCATION });

function request(overrides: Partial<AllocationRequest> = {}): AllocationRequest {
  return {
    installationId: "install-a",
    sandboxGroupId: GROUP,
    metadata: { workspaceId: WORKSPACE, leaseId: LEASE, epoch: 3, allocationId: ALLOCATION },
    profile: {
      template: "default",
      image: "ghcr.io/berth/boxd:1.0",
      resources: { limits: { cpu: "2", memory: "4Gi" } },
    },
    podTemplate: {
      spec: { containers: [{ name: "boxd", image: "ghcr.io/berth/boxd:1.0" }] },
    },
    volumeClaimTemplates: [
      {
        metadata: { name: "workspace" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    ],
    ...overrides,
  };
}

/** Every request for sandboxes but reads: what an allocation wrote (or tried to). */
function writes(f: SimClient): { method: string; status: number | undefined }[] {
  return f
    .sandboxRequests()
    .filter((entry) => entry.method !== "GET")
    .map((entry) => ({ method: entry.method, status: entry.status }));
}

/** Stores a Sandbox under this allocation's name behind the wrapper's back. */
async function standing(
  f: SimClient,
  extra: { annotations?: Record<string, string>; spec?: object } = {},
) {
  const body = {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    metadata: {
      name: SANDBOX_NAME,
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } },
      ...extra.spec,
    },
  };
  const stored = (await f.custom.createNamespacedCustomObject({
    group: SANDBOX.group,
    version: SANDBOX.version,
    namespace: "default",
    plural: SANDBOX.plural,
    body,
  })) as KubeObject;
  f.sim.requests.clear();
  return stored;
}

async function current(f: SimClient): Promise<KubeObject> {
  return f.client.get(f.op(), { kind: SANDBOX, name: SANDBOX_NAME });
}

async function refusal(f: SimClient, input: AllocationRequest): Promise<AllocationRefusedError> {
  const error = await rejectionOf(allocateSandbox(f.client, f.op(), input));
  expect(error).toBeInstanceOf(AllocationRefusedError);
  return error as AllocationRefusedError;
}

describe("allocateSandbox: one POST makes the Sandbox", () => {
  it("names it berth-<group>-<allocation> and writes labels, the three allocation annotations and the spec", async () => {
    await using f = await simClient();
    const input = request();
    const allocation = await allocateSandbox(f.client, f.op(), input);
    expect(allocation.outcome).toBe("created");
    expect(allocation.names.sandbox).toBe(SANDBOX_NAME);
    expect(allocation.names.persistentVolumeClaims).toEqual([`workspace-${SANDBOX_NAME}`]);
    const [post, ...rest] = f.sandboxRequests();
    expect(rest).toEqual([]);
    expect(post).toMatchObject({ method: "POST", status: 201, contentType: "application/json" });
    const body = JSON.parse(post?.body ?? "") as KubeObject & { spec: Record<string, unknown> };
    expect(body.metadata).toEqual({
      name: SANDBOX_NAME,
      labels: {
        [LABELS.installation]: "install-a",
        [LABELS.workspaceId]: WORKSPACE,
        [LABELS.sandboxGroupId]: GROUP,
        [LABELS.leaseId]: LEASE,
        [LABELS.epoch]: "3",
      },
      annotations: {
        [ALLOCATION_ANNOTATIONS.id]: ALLOCATION,
        [ALLOCATION_ANNOTATIONS.scope]: allocationScope({
          installationId: "install-a",
          workspaceId: WORKSPACE,
          sandboxGroupId: GROUP,
        }),
        [ALLOCATION_ANNOTATIONS.executionProfile]: executionProfileFingerprint(
          input.profile,
          input.podTemplate,
        ),
        [POD_TEMPLATE_HASH_ANNOTATION]: podTemplateHash(input.podTemplate),
      },
    });
    expect(body.spec).toEqual({
      operatingMode: "Running",
      service: true,
      podTemplate: input.podTemplate,
      volumeClaimTemplates: input.volumeClaimTemplates,
    });
    expect(readAllocation(allocation.sandbox.metadata)).toEqual(allocation.allocation);
  });

  it("allocating again with the same id, scope and profile adopts it: a 409, one GET, no write, no watch", async () => {
    await using f = await simClient();
    const first = await allocateSandbox(f.client, f.op(), request());
    f.sim.requests.clear();
    const again = await allocateSandbox(f.client, f.op(), request());
    expect(again.outcome).toBe("adopted");
    expect(again.sandbox.metadata.uid).toBe(first.sandbox.metadata.uid);
    expect(again.sandbox.metadata.resourceVersion).toBe(first.sandbox.metadata.resourceVersion);
    expect(f.sandboxRequests().map((entry) => [entry.method, entry.status])).toEqual([
      ["POST", 409],
      ["GET", 200],
    ]);
    expect(f.sim.requests.filter({ verb: "watch" })).toEqual([]);
  });

  it("a newer spawner (another epoch) adopts the same allocation too: the epoch is not part of it", async () => {
    await using f = await simClient();
    await allocateSandbox(f.client, f.op(), request());
    const successor = request();
    const adopted = await allocateSandbox(f.client, f.op(), {
      ...successor,
      metadata: { ...successor.metadata, epoch: 4 },
    });
    expect(adopted.outcome).toBe("adopted");
    expect(readSandboxIdentity(adopted.sandbox.metadata)?.metadata.epoch).toBe(3);
  });
});

describe("allocateSandbox refuses a Sandbox that is not this allocation, changing nothing", () => {
  it("another allocation holding the name (a short-form collision): refused on allocation-id", async () => {
    await using f = await simClient();
    const mine = request();
    const before = await standing(f, {
      annotations: {
        [ALLOCATION_ANNOTATIONS.id]: "some-other-allocation",
        [ALLOCATION_ANNOTATIONS.scope]: allocationScope({
          installationId: "install-a",
          workspaceId: WORKSPACE,
          sandboxGroupId: GROUP,
        }),
        [ALLOCATION_ANNOTATIONS.executionProfile]: executionProfileFingerprint(
          mine.profile,
          mine.podTemplate,
        ),
      },
    });
    const error = await refusal(f, mine);
    expect(error).toMatchObject({
      field: "allocation-id",
      expected: ALLOCATION,
      actual: "some-other-allocation",
      sandboxName: SANDBOX_NAME,
    });
    expect(writes(f)).toEqual([{ method: "POST", status: 409 }]);
    expect((await current(f)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(toBackendError(error, { operation: "create" }).code).toBe("invalid");
  });

  it("the same allocation for another installation or workspace: refused on allocation-scope", async () => {
    await using f = await simClient();
    const made = await allocateSandbox(f.client, f.op(), request());
    f.sim.requests.clear();
    const otherInstallation = await refusal(f, request({ installationId: "install-b" }));
    expect(otherInstallation).toMatchObject({
      field: "allocation-scope",
      actual: made.allocation.scope,
    });
    const base = request();
    const otherWorkspace = await refusal(f, {
      ...base,
      metadata: { ...base.metadata, workspaceId: "ffffffff-0000-4000-8000-000000000000" },
    });
    expect(otherWorkspace.field).toBe("allocation-scope");
    expect(writes(f)).toEqual([
      { method: "POST", status: 409 },
      { method: "POST", status: 409 },
    ]);
    expect((await current(f)).metadata.resourceVersion).toBe(made.sandbox.metadata.resourceVersion);
  });

  it("the same allocation under another execution profile (image, runtime class or pod template): refused on execution-profile", async () => {
    await using f = await simClient();
    const base = request();
    const made = await allocateSandbox(f.client, f.op(), base);
    f.sim.requests.clear();
    const variants: AllocationRequest[] = [
      { ...base, profile: { ...base.profile, image: "ghcr.io/berth/boxd:2.0" } },
      { ...base, profile: { ...base.profile, runtimeClassName: "gvisor" } },
      { ...base, podTemplate: { spec: { containers: [{ name: "boxd", image: "other" }] } } },
    ];
    for (const variant of variants) {
      expect(await refusal(f, variant)).toMatchObject({
        field: "execution-profile",
        actual: made.allocation.executionProfile,
      });
    }
    expect(writes(f)).toEqual(variants.map(() => ({ method: "POST", status: 409 })));
    expect((await current(f)).metadata.resourceVersion).toBe(made.sandbox.metadata.resourceVersion);
  });

  it("a Sandbox with no allocation annotations is refused, not stamped, and a suspended one is not woken", async () => {
    await using f = await simClient();
    const before = await standing(f, { spec: { operatingMode: "Suspended" } });
    const error = await refusal(f, request());
    expect(error).toMatchObject({ field: "allocation-id", actual: undefined });
    expect(error.message).toContain("without a allocation-id annotation");
    expect(writes(f)).toEqual([{ method: "POST", status: 409 }]);
    const after = await current(f);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect((after.spec as { operatingMode: string }).operatingMode).toBe("Suspended");
    expect(readAllocation(after.metadata)).toEqual({
      id: undefined,
      scope: undefined,
      executionProfile: undefined,
    });
  });

  it("a Sandbox being deleted is a conflict to retry later, never adopted", async () => {
    await using f = await simClient();
    await allocateSandbox(f.client, f.op(), request());
    const target = { kind: SANDBOX, name: SANDBOX_NAME };
    await f.client.patch(f.op(), target, {
      type: "merge",
      body: { metadata: { finalizers: ["test.berth.dev/hold"] } },
    });
    await f.client.delete(f.op(), target);
    const error = await rejectionOf(allocateSandbox(f.client, f.op(), request()));
    expect(error).toBeInstanceOf(KubeError);
    expect(error).toMatchObject({ kind: "conflict" });
    expect(toBackendError(error, { operation: "create" }).code).toBe("unavailable");
  });

  it("input that cannot name or label a Sandbox is refused before any request", async () => {
    await using f = await simClient();
    const base = request();
    const cases: [AllocationRequest, unknown][] = [
      [request({ installationId: "install/a" }), AllocationInputError],
      [{ ...base, metadata: { ...base.metadata, epoch: -1 } }, AllocationInputError],
      [{ ...base, metadata: { ...base.metadata, allocationId: "" } }, AllocationInputError],
      [{ ...base, profile: { ...base.profile, image: "" } }, AllocationInputError],
      [
        { ...base, volumeClaimTemplates: [{ metadata: { name: "w".repeat(32) }, spec: {} }] },
        SandboxNameError,
      ],
    ];
    for (const [input, type] of cases) {
      expect(await rejectionOf(allocateSandbox(f.client, f.op(), input))).toBeInstanceOf(type);
    }
    expect(f.sim.requests.all()).toEqual([]);
  });
});

describe("allocation annotations are written once", () => {
  it("appear in the create POST only: later patches leave them out, and the allocation still adopts", async () => {
    await using f = await simClient();
    await allocateSandbox(f.client, f.op(), request());
    const target = { kind: SANDBOX, name: SANDBOX_NAME };
    await f.client.patch(f.op(), target, {
      type: "merge",
      body: {
        metadata: { annotations: { "sandbox.berth.dev/note": "x" } },
        spec: { operatingMode: "Suspended" },
      },
    });
    await f.client.patch(f.op(), target, {
      type: "json",
      operations: [
        { op: "test", path: "/spec/operatingMode", value: "Suspended" },
        { op: "add", path: "/spec/operatingMode", value: "Running" },
      ],
    });
    expect((await allocateSandbox(f.client, f.op(), request())).outcome).toBe("adopted");
    const bodies = f.sandboxRequests().map((entry) => [entry.method, entry.body ?? ""] as const);
    const allocationKeys = Object.values(ALLOCATION_ANNOTATIONS);
    for (const [method, body] of bodies) {
      const mentions = allocationKeys.filter(
        (key) => body.includes(key) || body.includes(key.replace("/", "~1")),
      );
      expect([method, mentions]).toEqual([method, method === "POST" ? allocationKeys : []]);
    }
    expect(bodies.filter(([method]) => method === "PATCH")).toHaveLength(2);
  });
});

describe("inventory reads BoxMetadata back", () => {
  it("lists only its installation's Sandboxes and reads each one's metadata", async () => {
    await using f = await simClient();
    const second = "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e";
    const base = request();
    await allocateSandbox(f.client, f.op(), base);
    await allocateSandbox(f.client, f.op(), {
      ...base,
      metadata: { ...base.metadata, allocationId: second, epoch: 5 },
    });
    await allocateSandbox(
      f.client,
      f.op(),
      request({ installationId: "install-b", sandboxGroupId: LEASE }),
    );
    const mine = await f.client.list(f.op(), SANDBOX, {
      labelSelector: installationSelector("install-a"),
    });
    expect(
      mine
        .map((sandbox) => readSandboxIdentity(sandbox.metadata))
        .sort((a, b) => (a?.metadata.epoch ?? 0) - (b?.metadata.epoch ?? 0)),
    ).toEqual([
      { installationId: "install-a", sandboxGroupId: GROUP, metadata: base.metadata },
      {
        installationId: "install-a",
        sandboxGroupId: GROUP,
        metadata: { ...base.metadata, allocationId: second, epoch: 5 },
      },
    ]);
  });

  it("reads nothing from a Sandbox that is not Berth's or whose labels were damaged", () => {
    expect(readSandboxIdentity({ name: "x" })).toBeUndefined();
    expect(
      readSandboxIdentity({
        name: "x",
        labels: {
          [LABELS.installation]: "i",
          [LABELS.workspaceId]: "w",
          [LABELS.sandboxGroupId]: "g",
          [LABELS.leaseId]: "l",
          [LABELS.epoch]: "01",
        },
        annotations: { [ALLOCATION_ANNOTATIONS.id]: "a" },
      }),
    ).toBeUndefined();
  });
});
