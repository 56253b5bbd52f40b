// The box's token is a secret, not an identifier (issue 35): derived from Berth's secret and the
// allocation, kept in a Secret the Sandbox owns (made after it, collected with it), read by boxd
// from a mounted file. Neither the pod spec nor the pod uid opens the box. kube-sim over HTTP.
import { randomUUID } from "node:crypto";
import { createBoxClient, BoxError } from "@berth/box-protocol";
import type { KubeSim } from "@berth/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boxToken, tokenSecretName } from "./boxTokenSecret.ts";
import type { KubernetesBackend } from "./kubernetesBackend.ts";
import { kubeBoxWorld, SANDBOXES, type KubeBoxWorld } from "./tests/kubeBoxWorld.ts";

let w: KubeBoxWorld;
let sim: KubeSim;
let backend: KubernetesBackend;

beforeAll(async () => {
  w = await kubeBoxWorld();
  sim = w.sim;
  backend = w.adapter();
});
afterAll(async () => {
  await w[Symbol.asyncDispose]();
});

describe("the box token", () => {
  it("is made with the Sandbox in two requests after the template's read — the Sandbox, then its Secret — and never in the pod spec", async () => {
    const before = sim.requests.filter({}).at(-1)?.seq ?? 0;
    const meta = w.metadata();
    const { instanceId } = await backend.create({ metadata: meta, profile: w.profile });
    const made = sim.requests
      .filter({})
      .filter((r) => r.seq > before && r.resource !== undefined)
      .map((r) => [r.method, r.resource, r.status]);
    expect(made).toEqual([
      ["GET", "sandboxtemplates", 200],
      ["POST", "sandboxes", 201],
      ["POST", "secrets", 201],
    ]);
    const token = boxToken(w.secret, meta.allocationId);
    const sandbox: unknown = await w.custom.getNamespacedCustomObject({
      ...SANDBOXES,
      name: instanceId,
    });
    expect(JSON.stringify(sandbox)).not.toContain(token);
    const stored = await w.core.readNamespacedSecret({
      name: tokenSecretName(instanceId),
      namespace: "default",
    });
    const owner = stored.metadata?.ownerReferences?.find((ref) => ref.controller === true);
    expect(owner).toMatchObject({ kind: "Sandbox", name: instanceId });
    expect(owner?.uid).toBe((sandbox as { metadata: { uid: string } }).metadata.uid);
    expect(Buffer.from(stored.data?.token ?? "", "base64").toString()).toBe(token);

    // boxd serves with it; the Secret goes with the Sandbox.
    const client = await backend.ready(instanceId, { timeoutMs: 30_000 });
    expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
    await backend.terminate(instanceId, { epoch: 1 });
    await sim.settled();
    await expect(
      w.core.readNamespacedSecret({ name: tokenSecretName(instanceId), namespace: "default" }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it("the pod uid alone never opens the box; the token at another pod's address is refused as the wrong pod", async () => {
    const meta = w.metadata();
    const { instanceId } = await backend.create({ metadata: meta, profile: w.profile });
    await backend.ready(instanceId, { timeoutMs: 30_000 });
    const pod = await w.core.readNamespacedPod({ name: instanceId, namespace: "default" });
    const podUid = pod.metadata?.uid ?? "";
    const baseUrl = `http://${pod.status?.podIP ?? ""}:7070`;
    const refusal = async (options: { token: string; podUid?: string }) => {
      const error = await createBoxClient({ baseUrl, ...options })
        .exec({ argv: ["true"] })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(BoxError);
      return (error as BoxError).code;
    };
    // Everything a reader of pods knows: the uid, as the uid and as the token.
    expect(await refusal({ token: podUid, podUid })).toBe("unauthorized");
    expect(await refusal({ token: podUid.padEnd(64, "0"), podUid })).toBe("unauthorized");
    // The right token naming another pod: this address is not that pod.
    const token = boxToken(w.secret, meta.allocationId);
    expect(await refusal({ token, podUid: randomUUID() })).toBe("wrong_pod");
    // Both, as Berth dials it.
    const client = createBoxClient({ baseUrl, token, podUid });
    expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
    await backend.terminate(instanceId, { epoch: 1 });
  });
});
