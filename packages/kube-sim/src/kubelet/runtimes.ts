/**
 * What a container runs (§8.6): whoever starts kube-sim maps images to commands. An image with no
 * entry runs a harmless long-lived process, so any pod can become Running and Ready.
 */
import type { KubeObject } from "../objects.ts";

/** A volume mounted into a container: the real folder behind the container's mount path. */
export interface RuntimeMount {
  /** The pod volume's name. */
  volume: string;
  /** Where the container declared it (`volumeMounts[].mountPath`). */
  mountPath: string;
  /** The folder on this machine that holds the volume's files (a secret volume: one per key). */
  hostPath: string;
  /** The mount's `readOnly`; always true for a secret volume, as the kubelet mounts those. */
  readOnly: boolean;
}

export interface RuntimeContext {
  pod: KubeObject;
  container: KubeObject;
  namespace: string;
  podName: string;
  podUid: string;
  /** The pod's own loopback address, 127.0.0.N (also in the env as POD_IP). */
  podIP: string;
  /**
   * The container's environment as the kubelet built it: PATH, HOME (a folder of the pod's own),
   * the declared `env` with downward-API `fieldRef`s and `secretKeyRef`s resolved, POD_IP, and one
   * `KUBE_SIM_VOLUME_<NAME>` per mount (the volume name upper-cased, non-alphanumerics as `_`).
   */
  env: Record<string, string>;
  mounts: RuntimeMount[];
}

export interface RuntimeCommand {
  /** argv: the executable first. */
  command: string[];
  /** Added to (and overriding) the context's env. */
  env?: Record<string, string>;
  cwd?: string;
}

export type Runtime = (context: RuntimeContext) => RuntimeCommand;

/** image → runtime. Looked up by the full image string, then by the image without its tag. */
export type RuntimeMap = Record<string, Runtime>;

/**
 * Idles until killed, and exits on SIGTERM as a well-behaved container does. It also ends once
 * the simulator's process is gone, so a test runner that dies without `close()` leaves nothing
 * behind.
 */
export const idleRuntime: Runtime = () => ({
  command: ["sh", "-c", `while kill -0 ${String(process.pid)} 2>/dev/null; do sleep 1; done`],
});

export function runtimeFor(runtimes: RuntimeMap, image: string): Runtime {
  const untagged = image.replace(/(@sha256:[0-9a-f]+|:[^/:]+)$/, "");
  return runtimes[image] ?? runtimes[untagged] ?? idleRuntime;
}

/** The env var naming a volume's folder. */
export function volumeEnvName(volume: string): string {
  return `KUBE_SIM_VOLUME_${volume.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}
