/**
 * A share of the conformance checks through kubectl, spawned with --kubeconfig. kubectl must be
 * on PATH under CI (scripts/test.sh installs Debian's kubernetes-client when it is missing);
 * elsewhere these tests are skipped with a message.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeSim } from "../src/index.ts";
import { startKubeSim } from "../src/index.ts";

const run = promisify(execFile);
const probe = spawnSync("kubectl", ["version", "--client", "-o", "json"], { encoding: "utf8" });
const available = probe.status === 0;
/** The client's gitVersion (e.g. v1.32.4, or Debian's v1.20.2), named in the tests that depend on it. */
const KUBECTL_VERSION = available
  ? ((JSON.parse(probe.stdout) as { clientVersion?: { gitVersion?: string } }).clientVersion
      ?.gitVersion ?? "unknown")
  : "absent";
if (!available) {
  if (process.env.CI === "true")
    throw new Error("kubectl is required under CI (scripts/test.sh installs kubernetes-client)");
  process.stderr.write(
    "kube-sim: kubectl not found; skipping the kubectl tests (apt-get install kubernetes-client)\n",
  );
}

const SANDBOX_YAML = (image: string) => `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata:
  name: sb1
spec:
  podTemplate:
    spec:
      containers:
      - name: main
        image: ${image}
`;

describe.skipIf(!available)("kubectl against kube-sim (§1, §4, §9)", () => {
  let sim: KubeSim;
  let dir: string;
  const kubectl = async (...args: string[]): Promise<{ code: number; out: string }> => {
    try {
      const { stdout, stderr } = await run(
        "kubectl",
        ["--kubeconfig", join(dir, "config"), ...args],
        { timeout: 20_000 },
      );
      return { code: 0, out: `${stdout}${stderr}`.trim() };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? 1, out: `${failed.stdout ?? ""}${failed.stderr ?? ""}`.trim() };
    }
  };
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(async () => {
    sim = await startKubeSim();
    dir = mkdtempSync(join(tmpdir(), "kube-sim-kubectl-"));
    writeFileSync(join(dir, "config"), sim.kubeConfig());
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("§1 discovery: kubectl api-resources lists the core kinds and the agent-sandbox CRDs with short names", async () => {
    const { code, out } = await kubectl("api-resources");
    expect(code).toBe(0);
    expect(out).toMatch(/sandboxes\s+sandbox\s+agents\.x-k8s\.io\/v1beta1\s+true\s+Sandbox/);
    expect(out).toMatch(
      /sandboxwarmpools\s+swp\s+extensions\.agents\.x-k8s\.io\/v1beta1\s+true\s+SandboxWarmPool/,
    );
    expect(out).toMatch(/pods\s+po\s+v1\s+true\s+Pod/);
  });

  it("§4.5 kubectl apply creates, leaves an unchanged object alone, and configures a change (generation + 1)", async () => {
    expect((await kubectl("apply", "-f", file("a.yaml", SANDBOX_YAML("busybox")))).out).toBe(
      "sandbox.agents.x-k8s.io/sb1 created",
    );
    expect((await kubectl("apply", "-f", file("a.yaml", SANDBOX_YAML("busybox")))).out).toBe(
      "sandbox.agents.x-k8s.io/sb1 unchanged",
    );
    expect((await kubectl("apply", "-f", file("b.yaml", SANDBOX_YAML("alpine")))).out).toBe(
      "sandbox.agents.x-k8s.io/sb1 configured",
    );
    const got = await kubectl(
      "get",
      "sandbox",
      "sb1",
      "-o",
      "jsonpath={.spec.podTemplate.spec.containers[0].image} {.metadata.generation} {.spec.operatingMode}",
    );
    expect(got.out).toBe("alpine 2 Running");
  });

  it("§4.5 kubectl apply --server-side sends an apply patch with its field manager", async () => {
    const { code, out } = await kubectl(
      "apply",
      "--server-side",
      "-f",
      file("c.yaml", SANDBOX_YAML("debian")),
    );
    expect(code).toBe(0);
    expect(out).toBe("sandbox.agents.x-k8s.io/sb1 serverside-applied");
  });

  it("§4.5 kubectl patch: merge works on a CR; the default strategic merge is refused with the 415 text", async () => {
    expect(
      (
        await kubectl(
          "patch",
          "sandbox",
          "sb1",
          "--type=merge",
          "-p",
          '{"metadata":{"labels":{"team":"x"}}}',
        )
      ).out,
    ).toBe("sandbox.agents.x-k8s.io/sb1 patched");
    const smp = await kubectl(
      "patch",
      "sandbox",
      "sb1",
      "-p",
      '{"metadata":{"labels":{"team":"y"}}}',
    );
    expect(smp.code).not.toBe(0);
    expect(smp.out).toContain(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    expect((await kubectl("get", "sandboxes", "-l", "team=x", "-o", "name")).out).toBe(
      "sandbox.agents.x-k8s.io/sb1",
    );
  });

  it("§3 kubectl shows the NotFound and AlreadyExists messages", async () => {
    const missing = await kubectl("get", "sandbox", "nope");
    expect(missing.out).toBe(
      'Error from server (NotFound): sandboxes.agents.x-k8s.io "nope" not found',
    );
    const cm = file(
      "cm.yaml",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  a: '1'\n",
    );
    expect((await kubectl("create", "-f", cm)).out).toBe("configmap/cm1 created");
    expect((await kubectl("create", "-f", cm)).out).toContain(
      "Error from server (AlreadyExists): error when creating",
    );
  });

  it("§3 / issue 35 kubectl creates a Secret from stringData, reads its data as base64, and shows the server's 400 for data that is not base64", async () => {
    // -f, not `create secret generic`: that one sends protobuf, which kube-sim does not speak.
    const good = file(
      "token.yaml",
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: box-token\nstringData:\n  token: s3cret\n",
    );
    expect((await kubectl("create", "-f", good)).out).toBe("secret/box-token created");
    expect(
      (await kubectl("get", "secret", "box-token", "-o", "jsonpath={.type} {.data.token}")).out,
    ).toBe(`Opaque ${Buffer.from("s3cret").toString("base64")}`);
    const bad = file(
      "secret.yaml",
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bad\ndata:\n  password: wombat\n",
    );
    const refused = await kubectl("create", "-f", bad);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toBe(
      `Error from server (BadRequest): error when creating "${bad}": Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4`,
    );
  });

  it(`issue 42 kubectl ${KUBECTL_VERSION} with its default validation refuses an unknown field (client-side from /openapi/v2, or server-side with fieldValidation=Strict)`, async () => {
    const bad = file(
      "bad.yaml",
      SANDBOX_YAML("busybox")
        .replace("name: sb1", "name: sb-bad")
        .replace("spec:\n", "spec:\n  bogus: 1\n"),
    );
    sim.requests.clear();
    const refused = await kubectl("apply", "-f", bad);
    expect(refused.code).not.toBe(0);
    // kubectl < 1.25 validates against /openapi/v2; newer ones find fieldValidation on the PATCH
    // operation in /openapi/v3 and let the server refuse the field.
    const serverSide = sim.requests.filter({ method: "POST" }).length > 0;
    const expected = serverSide
      ? 'strict decoding error: unknown field "spec.bogus"'
      : 'ValidationError(Sandbox.spec): unknown field "bogus" in io.x-k8s.agents.v1beta1.Sandbox.spec';
    expect(
      refused.out,
      `kubectl ${KUBECTL_VERSION}, ${serverSide ? "server" : "client"}-side`,
    ).toContain(expected);
    if (serverSide) {
      expect(sim.requests.last({ method: "POST" })?.query).toMatchObject({
        fieldValidation: "Strict",
      });
    }
    expect((await kubectl("get", "sandbox", "sb-bad")).code).not.toBe(0);
  });

  it(`issue 42 kubectl ${KUBECTL_VERSION} applies a CiliumNetworkPolicy and lists it by its short name`, async () => {
    const policy = file(
      "cnp.yaml",
      [
        "apiVersion: cilium.io/v2",
        "kind: CiliumNetworkPolicy",
        "metadata:",
        "  name: namzu-sbx-1",
        "spec:",
        "  endpointSelector:",
        "    matchLabels: { sandbox: sb1 }",
        "  egress:",
        "  - toFQDNs: [{ matchName: example.com }, { matchPattern: '*.example.com' }]",
        "",
      ].join("\n"),
    );
    expect((await kubectl("apply", "-f", policy)).out).toBe(
      "ciliumnetworkpolicy.cilium.io/namzu-sbx-1 created",
    );
    expect((await kubectl("get", "cnp", "-o", "name")).out).toBe(
      "ciliumnetworkpolicy.cilium.io/namzu-sbx-1",
    );
    expect((await kubectl("delete", "cnp", "namzu-sbx-1")).code).toBe(0);
  });

  it("§4.9 kubectl delete removes the object and waits for it to be gone", async () => {
    expect((await kubectl("delete", "sandbox", "sb1")).out).toBe(
      'sandbox.agents.x-k8s.io "sb1" deleted',
    );
    expect((await kubectl("get", "sandboxes")).out).toBe(
      "No resources found in default namespace.",
    );
  });
});
