// Reaching boxd (issue 37): Berth dials boxd at its pod's IP. Where that IP takes no connection
// from Berth (a laptop with a KUBECONFIG for a remote cluster), the Sandbox still gets Ready — the
// kubelet reaches boxd — so the wait must end at its own deadline with a typed, final error that
// says Berth must run inside the cluster. kube-sim over real HTTP: an image the kubelet maps to
// no runtime runs an idle process, so its pod is Running and Ready at a loopback IP where nothing
// listens (connection refused, as from outside a cluster's pod network).
import { randomBytes } from "node:crypto";
import { BoxError } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendError, backendErrorAnswers } from "../../spawner/backend.ts";
import type { KubernetesBackend } from "./kubernetesBackend.ts";
import { isConnectFailure } from "./podNetwork.ts";
import { kubeBoxWorld, type KubeBoxWorld } from "./tests/kubeBoxWorld.ts";

let w: KubeBoxWorld;
let backend: KubernetesBackend;

beforeAll(async () => {
  w = await kubeBoxWorld();
  backend = w.adapter();
});
afterAll(async () => {
  await w[Symbol.asyncDispose]();
});

describe("a Ready box whose pod IP Berth cannot reach", () => {
  it("fails at its readiness deadline as unreachable_pod_network, saying Berth must run inside the cluster", async () => {
    const image = `nothing-listens-${randomBytes(4).toString("hex")}`;
    const { instanceId } = await backend.create({
      metadata: w.metadata(),
      profile: { ...w.profile, image },
    });
    const error = await backend.ready(instanceId, { timeoutMs: 1_500 }).then(
      () => {
        throw new Error("expected the readiness wait to fail");
      },
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe("unreachable_pod_network");
    expect((error as BackendError).instanceId).toBe(instanceId);
    expect((error as BackendError).message).toMatch(
      /is Ready in the cluster, but Berth cannot connect to boxd at its pod's IP \(boxd did not answer: .*ECONNREFUSED 127\.\d+\.\d+\.\d+:7070.*\)\. .*Berth must run inside the cluster .*port-forwarding is not built/,
    );
    // Final: the next call meets the same network.
    expect(backendErrorAnswers.unreachable_pod_network).toEqual({
      code: "backend_unreachable_pod_network",
      retryable: false,
    });
    // The box is Ready all along: the cluster's view, not Berth's reach.
    const listed = (await backend.inventory()).find((box) => box.instanceId === instanceId);
    expect(listed?.state).toBe("running");
    await backend.terminate(instanceId);
  });

  it("a box still starting at the deadline stays unavailable (retryable): only a failed connection is the network", async () => {
    const image = `never-ready-${randomBytes(4).toString("hex")}`;
    w.sim.kubelet?.faults.set({ image }, { kind: "NotReady" });
    const { instanceId } = await backend.create({
      metadata: w.metadata(),
      profile: { ...w.profile, image },
    });
    const error = await backend.ready(instanceId, { timeoutMs: 800 }).catch((e: unknown) => e);
    expect((error as BackendError).code).toBe("unavailable");
    await backend.terminate(instanceId);
  });
});

describe("isConnectFailure", () => {
  const refused = (code: string): BoxError =>
    new BoxError("unavailable", "boxd did not answer", {
      cause: new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) }),
    });

  it("counts no connection made, and no answer before the deadline", () => {
    for (const code of ["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"])
      expect(isConnectFailure(refused(code))).toBe(true);
    const tried = new AggregateError([Object.assign(new Error("x"), { code: "ETIMEDOUT" })]);
    expect(
      isConnectFailure(
        new BoxError("unavailable", "boxd did not answer", {
          cause: new TypeError("fetch failed", { cause: tried }),
        }),
      ),
    ).toBe(true);
    expect(isConnectFailure(new BoxError("timeout", "boxd did not answer within 10 ms"))).toBe(
      true,
    );
  });

  it("does not count a connection boxd broke, or boxd's own answer", () => {
    expect(isConnectFailure(refused("ECONNRESET"))).toBe(false);
    expect(isConnectFailure(new BoxError("unavailable", "503 from boxd"))).toBe(false);
    expect(isConnectFailure(new BoxError("unauthorized", "bad token"))).toBe(false);
  });
});
