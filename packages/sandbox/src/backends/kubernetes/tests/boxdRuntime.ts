/**
 * What kube-sim's kubelet runs for a Berth box's image: the boxd bundle this checkout built,
 * on the pod's loopback address, serving the folder behind the pod's workspace volume. The
 * container's declared env (port, instance id, token) is the pod template's, as on a cluster.
 */
import type { Runtime, RuntimeMap } from "@berth/kube-sim";
import { defaultBoxdEntry } from "../../local/boxdEntry.ts";
import { boxdArgv } from "../../local/boxProcess.ts";
import { join } from "node:path";
import { TOKEN_MOUNT_PATH, WORKSPACE_MOUNT_PATH } from "../boxPodTemplate.ts";
import { TOKEN_KEY } from "../boxTokenSecret.ts";

/** The image the contract's boxes run. */
export const BOXD_TEST_IMAGE = "berth-boxd";

const boxdRuntime: Runtime = (context) => {
  const workspace = context.mounts.find((mount) => mount.mountPath === WORKSPACE_MOUNT_PATH);
  if (workspace === undefined)
    throw new Error(`pod ${context.podName} mounts nothing at ${WORKSPACE_MOUNT_PATH}`);
  const token = context.mounts.find((mount) => mount.mountPath === TOKEN_MOUNT_PATH);
  if (token === undefined) throw new Error(`pod ${context.podName} mounts no token`);
  return {
    command: boxdArgv({ entry: defaultBoxdEntry(), logLevel: "warn" }),
    // The container's paths, as the host sees the folders behind them.
    env: {
      BOXD_HOST: context.podIP,
      BOXD_ROOT: workspace.hostPath,
      BOXD_TOKEN_FILE: join(token.hostPath, TOKEN_KEY),
    },
  };
};

export const boxdRuntimes: RuntimeMap = { [BOXD_TEST_IMAGE]: boxdRuntime };
