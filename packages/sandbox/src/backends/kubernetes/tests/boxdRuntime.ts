/**
 * What kube-sim's kubelet runs for a Berth box's image: the boxd bundle this checkout built,
 * on the pod's loopback address, serving the folder behind the pod's workspace volume. The
 * container's declared env (port, instance id, token) is the pod template's, as on a cluster.
 */
import type { Runtime, RuntimeMap } from "@berth/kube-sim";
import { defaultBoxdEntry } from "../../local/boxdEntry.ts";
import { boxdArgv } from "../../local/boxProcess.ts";
import { join } from "node:path";
import { POOL_KEY_MOUNT_PATH, TOKEN_MOUNT_PATH, WORKSPACE_MOUNT_PATH } from "../boxPodTemplate.ts";
import { TOKEN_KEY } from "../boxTokenSecret.ts";
import { POOL_KEY_KEY } from "../poolKeySecret.ts";

/** The image the contract's boxes run. */
export const BOXD_TEST_IMAGE = "berth-boxd";

const boxdRuntime: Runtime = (context) => {
  const workspace = context.mounts.find((mount) => mount.mountPath === WORKSPACE_MOUNT_PATH);
  if (workspace === undefined)
    throw new Error(`pod ${context.podName} mounts nothing at ${WORKSPACE_MOUNT_PATH}`);
  // A box's own pod mounts its token; a warm pool's, the pool key it is bound with.
  const token = context.mounts.find((mount) => mount.mountPath === TOKEN_MOUNT_PATH);
  const poolKey = context.mounts.find((mount) => mount.mountPath === POOL_KEY_MOUNT_PATH);
  const identity: Record<string, string> | undefined =
    token !== undefined
      ? { BOXD_TOKEN_FILE: join(token.hostPath, TOKEN_KEY) }
      : poolKey !== undefined
        ? { BOXD_POOL_KEY_FILE: join(poolKey.hostPath, POOL_KEY_KEY) }
        : undefined;
  if (identity === undefined)
    throw new Error(`pod ${context.podName} mounts neither a token nor a pool key`);
  return {
    command: boxdArgv({ entry: defaultBoxdEntry(), logLevel: "warn" }),
    // The container's paths, as the host sees the folders behind them.
    env: { BOXD_HOST: context.podIP, BOXD_ROOT: workspace.hostPath, ...identity },
  };
};

export const boxdRuntimes: RuntimeMap = { [BOXD_TEST_IMAGE]: boxdRuntime };
