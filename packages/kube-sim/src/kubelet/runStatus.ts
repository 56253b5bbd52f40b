/**
 * The status of a pod whose containers were started: the phase their processes give, the
 * conditions, the pod IP, and each container `running` or `terminated` (restarts are not
 * modelled: a container that exits stays exited).
 */
import { status, str } from "../controller/fields.ts";
import type { KubeObject } from "../objects.ts";
import type { ContainerProcess } from "./containerProcess.ts";
import { HOST_IP } from "./downwardApi.ts";
import { podConditions } from "./podConditions.ts";

export type RunPhase = "Running" | "Succeeded" | "Failed";

/** Failed as soon as one process failed, Succeeded once all exited 0, else Running. */
export function runPhase(processes: readonly ContainerProcess[]): RunPhase {
  const exited = processes.filter((p) => p.exit !== undefined);
  if (exited.some((p) => p.exit?.code !== 0)) return "Failed";
  return exited.length === processes.length ? "Succeeded" : "Running";
}

/** The `/status` merge patch; `notReady` and `noPodIP` are the pod's faults. */
export function runStatus(
  pod: KubeObject,
  run: { ip: string; processes: readonly ContainerProcess[] },
  at: { now: string; notReady: boolean; noPodIP: boolean },
): KubeObject {
  const { now } = at;
  const phase = runPhase(run.processes);
  const ready = phase === "Running" && !at.notReady;
  const containerStatuses = run.processes.map((p) => {
    const state =
      p.exit === undefined
        ? { running: { startedAt: p.startedAt ?? now } }
        : {
            terminated: {
              exitCode: p.exit.code ?? 137,
              ...(p.exit.signal === null ? {} : { signal: p.exit.signal }),
              reason: p.exit.code === 0 ? "Completed" : "Error",
              startedAt: p.startedAt ?? now,
              finishedAt: now,
              containerID: `kube-sim://${String(p.child.pid ?? 0)}`,
            },
          };
    return {
      name: p.name,
      image: p.image,
      imageID: `kube-sim://${p.image}`,
      containerID: `kube-sim://${String(p.child.pid ?? 0)}`,
      ready: ready && p.exit === undefined,
      started: p.exit === undefined,
      restartCount: 0,
      state,
    };
  });
  return {
    status: {
      phase,
      hostIP: HOST_IP,
      hostIPs: [{ ip: HOST_IP }],
      ...(at.noPodIP ? { podIP: null, podIPs: null } : { podIP: run.ip, podIPs: [{ ip: run.ip }] }),
      startTime: str(status(pod).startTime) ?? now,
      conditions: podConditions(pod, { ready, now }),
      containerStatuses,
    },
  };
}
