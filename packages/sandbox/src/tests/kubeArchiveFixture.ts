/**
 * The kube-sim world of the lease tests on Kubernetes: one simulator for the file (controller,
 * kubelet running boxd, Berth's SandboxTemplate), an adapter of its installation, and a folder
 * archive store; every box is deleted and the folder removed after the file's tests.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import type { KubernetesBackend } from "../backends/kubernetes/kubernetesBackend.ts";
import { kubeBoxWorld, type KubeBoxWorld } from "../backends/kubernetes/tests/kubeBoxWorld.ts";

export interface KubeArchiveWorld {
  readonly kube: KubeBoxWorld;
  readonly backend: KubernetesBackend;
  readonly store: FilesystemArchiveStore;
}

export function useKubeArchiveWorld(name: string): { readonly current: KubeArchiveWorld } {
  let world: KubeArchiveWorld | undefined;
  let storeRoot = "";
  beforeAll(async () => {
    const kube = await kubeBoxWorld();
    storeRoot = await mkdtemp(join(tmpdir(), `berth-${name}-`));
    world = {
      kube,
      backend: kube.adapter(),
      store: new FilesystemArchiveStore({ root: storeRoot }),
    };
  }, 60_000);
  afterAll(async () => {
    if (world !== undefined) {
      for (const box of await world.backend.inventory())
        await world.backend.terminate(box.instanceId);
      await world.kube[Symbol.asyncDispose]();
    }
    if (storeRoot !== "") await rm(storeRoot, { recursive: true, force: true });
  });
  return {
    get current(): KubeArchiveWorld {
      if (world === undefined) throw new Error("useKubeArchiveWorld: read .current inside a test");
      return world;
    },
  };
}
