/**
 * Setting up a pod's volumes before its containers start, as the kubelet's volume manager does
 * (`WaitForAttachAndMount`: every volume a container mounts, before any image is pulled or
 * container created): a PVC's folder, an emptyDir of the pod's own, a Secret's files.
 */
import { list, record, spec, str } from "../controller/fields.ts";
import type { InProcessClient } from "../inProcessClient.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { RuntimeMount } from "./runtimes.ts";
import type { SecretVolumeSource } from "./secretProjection.ts";
import { secretPayload, secretVolumeSource, writeProjection } from "./secretProjection.ts";
import type { VolumeFolders } from "./volumeFolders.ts";

/** A volume that is set up: its folder, and for a secret volume what it projects. */
export interface MountedVolume {
  hostPath: string;
  /** Secret volumes are always mounted read-only (since the fix for CVE-2017-1002102). */
  readOnly: boolean;
  secret: SecretVolumeSource | undefined;
}

export type VolumeSetUp =
  | { kind: "ready"; volumes: Map<string, MountedVolume> }
  /** A claim does not exist (or is being deleted): the pod waits for its event. */
  | { kind: "waitingForClaim" }
  /** A volume's SetUp failed: `message` is the plugin's error (the FailedMount event's tail). */
  | { kind: "failedMount"; volume: string; message: string };

export class PodVolumes {
  constructor(private readonly $: { client: InProcessClient; folders: VolumeFolders }) {}

  /** Sets up, in spec order, every volume some container mounts; stops at the first that fails. */
  setUp(pod: KubeObject): VolumeSetUp {
    const { namespace = "", uid = "" } = meta(pod);
    const used = new Set(
      list(spec(pod).containers).flatMap((c) => list(c.volumeMounts).map((m) => str(m.name))),
    );
    const volumes = new Map<string, MountedVolume>();
    for (const volume of list(spec(pod).volumes)) {
      const name = str(volume.name) ?? "";
      if (!used.has(name)) continue;
      const claimName = str(record(volume.persistentVolumeClaim).claimName);
      const secret = secretVolumeSource(volume);
      if (claimName !== undefined) {
        const pvc = this.$.client.get("pvc", namespace, claimName);
        if (pvc === undefined || meta(pvc).deletionTimestamp !== undefined)
          return { kind: "waitingForClaim" };
        const hostPath = this.$.folders.claim(namespace, claimName, meta(pvc).uid ?? "");
        volumes.set(name, { hostPath, readOnly: false, secret: undefined });
      } else if (volume.emptyDir !== undefined) {
        const hostPath = this.$.folders.podFolder(uid, "volumes", name);
        volumes.set(name, { hostPath, readOnly: false, secret: undefined });
      } else if (secret !== undefined) {
        const hostPath = this.$.folders.podFolder(uid, "volumes", name);
        const payload = secretPayload(
          secret,
          this.$.client.get("secret", namespace, secret.secretName),
        );
        if (payload.kind === "failed")
          return { kind: "failedMount", volume: name, message: payload.message };
        writeProjection(hostPath, payload.files);
        volumes.set(name, { hostPath, readOnly: true, secret });
      }
    }
    return { kind: "ready", volumes };
  }

  /**
   * Rewrites a running pod's volumes that project `secretName`, as the kubelet's periodic sync
   * does once it sees the Secret change. A failed payload leaves the files as they were.
   */
  refreshSecret(
    namespace: string,
    secretName: string,
    volumes: ReadonlyMap<string, MountedVolume>,
  ): void {
    for (const volume of volumes.values()) {
      if (volume.secret?.secretName !== secretName) continue;
      const payload = secretPayload(
        volume.secret,
        this.$.client.get("secret", namespace, secretName),
      );
      if (payload.kind === "files") writeProjection(volume.hostPath, payload.files);
    }
  }
}

/** A container's mounts of the set-up volumes; mounts naming no such volume are left out. */
export function mountsOf(
  container: KubeObject,
  volumes: ReadonlyMap<string, MountedVolume>,
): RuntimeMount[] {
  return list(container.volumeMounts).flatMap((mount) => {
    const volume = str(mount.name) ?? "";
    const mounted = volumes.get(volume);
    if (mounted === undefined) return [];
    return [
      {
        volume,
        mountPath: str(mount.mountPath) ?? "",
        hostPath: mounted.hostPath,
        readOnly: mounted.readOnly || mount.readOnly === true,
      },
    ];
  });
}
