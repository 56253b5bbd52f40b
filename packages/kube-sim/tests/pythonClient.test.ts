/**
 * The conformance checks through a client written by others: the official Kubernetes Python
 * client (Debian's python3-kubernetes), run by tests/python/conformance.py with /usr/bin/python3
 * (the interpreter Debian's package installs into; a python3 earlier on PATH may lack it). Under
 * CI a missing client fails these tests (scripts/test.sh installs the package); elsewhere they
 * are skipped with a message.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeSim } from "../src/index.ts";
import { startKubeSim } from "../src/index.ts";

const PYTHON = "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("./python/conformance.py", import.meta.url));
const run = promisify(execFile);

const probe = spawnSync(PYTHON, ["-c", "import kubernetes; print(kubernetes.__version__)"], {
  encoding: "utf8",
});
const available = probe.status === 0;
if (!available) {
  if (process.env.CI === "true")
    throw new Error(
      `the Kubernetes Python client is required under CI (scripts/test.sh installs python3-kubernetes): ${probe.error?.message ?? probe.stderr}`,
    );
  process.stderr.write(
    "kube-sim: /usr/bin/python3 cannot import kubernetes; skipping the Python client tests (apt-get install python3-kubernetes)\n",
  );
}

interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

/** Every check the script runs, grouped as the script groups them; each must be reported and pass. */
const GROUPS: Record<string, string[]> = {
  "§4.1–4.3, §3 ConfigMaps and Pods through CoreV1Api": [
    "core: create a ConfigMap answers the stored object with server metadata",
    "core: get a ConfigMap",
    "core: create a taken name is 409 AlreadyExists",
    "core: get a missing ConfigMap is 404 NotFound",
    "core: list with a label selector",
    "core: list with a field selector metadata.name",
    "core: list across namespaces",
    "core: an unsupported field selector is 400 BadRequest",
    "core: a malformed label selector is 400 BadRequest",
    "core: resourceVersionMatch without resourceVersion is 422 Invalid",
    "core: resourceVersionMatch NotOlderThan from resourceVersion 0 lists",
    "core: an invalid name is 422 Invalid",
    "core: patch a ConfigMap with a dict body (strategic merge)",
    "core: patch a ConfigMap with a list body (JSON patch)",
    "core: a failed JSON patch test is 422 Invalid",
    "core: replace with a stale resourceVersion is 409 Conflict",
    "core: delete a ConfigMap answers a Success Status, then get is 404",
    "core: delete a missing ConfigMap is 404 NotFound",
    "core: create and list Pods with a pod field selector",
    "core: delete a Pod answers the Pod",
  ],
  "§4.1–4.5, §3 Sandboxes through CustomObjectsApi": [
    "custom: create a Sandbox answers it defaulted with generation 1",
    "custom: get a Sandbox",
    "custom: create a taken name is 409 AlreadyExists",
    "custom: get a missing Sandbox is 404 NotFound with details",
    "custom: an unknown resource is 404 NotFound",
    "custom: a Sandbox without podTemplate is 422 Invalid",
    "custom: a body namespace other than the URL's is 400 BadRequest",
    "custom: list with a label selector is a SandboxList",
    "custom: list with a field selector metadata.name",
    "custom: a field selector on spec is 400 BadRequest",
    "custom: list across namespaces with paging",
    "custom: merge patch with a dict body changes the spec and bumps generation",
    "custom: merge patch with a stale resourceVersion is 409 Conflict",
    "custom: a list body goes out as a merge patch and is 422 Invalid",
    "custom: JSON patch with application/json-patch+json",
    "custom: a failed JSON patch test is 422 Invalid and changes nothing",
    "custom: a dict body under the JSON-patch type goes out as strategic merge and is 415",
    "custom: patch of a missing Sandbox is 404 NotFound",
    "custom: replace without resourceVersion is 422 Invalid",
    "custom: replace with a stale resourceVersion is 409 Conflict",
  ],
  "§4.6 the /status subresource": [
    "status: merge patch of /status changes status only, not generation",
    "status: replace of /status with the current resourceVersion",
    "status: an invalid condition reason is 422 Invalid",
    "status: a SandboxTemplate has no /status (404)",
  ],
  "§4.7 the /scale subresource": [
    "scale: a SandboxWarmPool's /scale reads and merge-patches as autoscaling/v1 Scale",
  ],
  "§4.8 watch through kubernetes.watch.Watch": [
    "watch: without resourceVersion, ADDED for existing objects, ending at timeoutSeconds",
    "watch: from a list's resourceVersion only newer events, and a re-watch across a timeout misses nothing",
    "watch: a label-selected core watch from a resourceVersion",
    "watch: bookmarks on request carry a resourceVersion",
    "watch: from a resourceVersion older than the history, the client raises 410 Expired",
  ],
  "§1 discovery and the verbs through kubernetes.dynamic.DynamicClient": [
    "dynamic: discovery resolves Sandbox (namespaced, with /status) and ConfigMap",
    "dynamic: create, get, JSON patch, merge patch and watch a Sandbox",
  ],
  "§4.9 delete with preconditions and finalizers": [
    "delete: a uid precondition that does not match is 409 Conflict",
    "delete: a resourceVersion precondition that does not match is 409 Conflict",
    "delete: matching preconditions delete with a Success Status",
    "delete: with a finalizer sets deletionTimestamp and answers the object",
    "delete: orphan_dependents=True orphans; with a propagation_policy too it is 422 Invalid",
    "delete: delete_collection deletes only what the selector and namespace match",
    "delete: an invalid propagationPolicy is 422 Invalid",
  ],
};

describe.skipIf(!available)("the Kubernetes Python client against kube-sim (§3, §4, §9)", () => {
  let sim: KubeSim;
  let dir: string;
  let version = "";
  let exitCode = 0;
  let stderr = "";
  const results = new Map<string, CheckResult>();

  beforeAll(async () => {
    // A short history, so the script's writes overrun it and a watch from resourceVersion 1 is
    // answered with the 410 Expired event (§4.8).
    sim = await startKubeSim({ historyWindow: 20 });
    dir = mkdtempSync(join(tmpdir(), "kube-sim-python-"));
    const config = join(dir, "config");
    writeFileSync(config, sim.kubeConfig());
    let stdout: string;
    try {
      ({ stdout, stderr } = await run(PYTHON, [SCRIPT, config], { timeout: 60_000 }));
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      exitCode = typeof failed.code === "number" ? failed.code : 1;
      stdout = failed.stdout ?? "";
      stderr = failed.stderr ?? String(error);
    }
    for (const line of stdout.split("\n")) {
      if (line.trim() === "") continue;
      const parsed = JSON.parse(line) as Partial<CheckResult> & { version?: string };
      if (parsed.version !== undefined) version = parsed.version;
      else if (parsed.name !== undefined) results.set(parsed.name, parsed as CheckResult);
    }
  }, 90_000);
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs Debian's client (the version the README names) and every check passes", () => {
    process.stdout.write(`kube-sim: Kubernetes Python client ${version}\n`);
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const failed = [...results.values()].filter((r) => !r.ok);
    expect(failed, stderr).toEqual([]);
    expect(exitCode, stderr).toBe(0);
    // Every check the script reports is one this test names, so none goes unasserted.
    expect([...results.keys()].sort()).toEqual(Object.values(GROUPS).flat().sort());
  });

  for (const [group, names] of Object.entries(GROUPS)) {
    it(group, () => {
      for (const name of names) {
        const result = results.get(name);
        expect(result, `${name}: not reported (${stderr})`).toBeDefined();
        expect({ name, ok: result?.ok, detail: result?.detail }).toEqual({
          name,
          ok: true,
          detail: result?.detail,
        });
      }
    });
  }
});
