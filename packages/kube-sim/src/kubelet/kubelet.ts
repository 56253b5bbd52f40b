/**
 * The fake scheduler and kubelet (§8.6): binds pods to the one node, runs each container as a
 * real child process chosen by the runtime map, reports phases and conditions, and ends
 * processes on deletion with SIGTERM, then SIGKILL once the grace period has passed on the
 * injected clock. Every process it started is killed on `stop()`.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { timestamp } from "../clock.ts";
import type { Clock } from "../clock.ts";
import { condition, list, record, spec, status, str } from "../controller/fields.ts";
import type { InProcessClient } from "../inProcessClient.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { ObjectStore, StoreEvent } from "../store.ts";
import { VirtualTimers } from "../virtualTimers.ts";
import { WorkQueue } from "../workQueue.ts";
import { HOST_IP, NODE_NAME, containerEnv } from "./downwardApi.ts";
import { PodAddresses } from "./podAddresses.ts";
import { podConditions } from "./podConditions.ts";
import type { PodFault } from "./podFaults.ts";
import { PodFaults } from "./podFaults.ts";
import type { RuntimeMap, RuntimeMount } from "./runtimes.ts";
import { runtimeFor } from "./runtimes.ts";
import { VolumeFolders } from "./volumeFolders.ts";

/** How much of each container's output is kept for `logs()`. */
const LOG_LIMIT = 64 * 1024;

interface ContainerProcess {
  name: string;
  image: string;
  child: ChildProcess;
  spawned: boolean;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  startedAt: string | undefined;
  output: string;
}

interface PodRun {
  uid: string;
  namespace: string;
  name: string;
  ip: string;
  processes: ContainerProcess[];
  terminating: boolean;
  cancelKill: (() => void) | undefined;
}

const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;

function images(pod: KubeObject): string[] {
  return list(spec(pod).containers).map((c) => str(c.image) ?? "");
}

export class Kubelet {
  readonly faults = new PodFaults();
  private readonly queue: WorkQueue;
  private readonly timers: VirtualTimers;
  private readonly runs = new Map<string, PodRun>();
  private readonly addresses = new PodAddresses();
  private readonly volumes: VolumeFolders;
  private readonly unsubscribe: () => void;
  /** Processes of forgotten runs that were killed but have not exited yet. */
  private readonly dying = new Set<ContainerProcess>();
  private stopped = false;

  constructor(
    private readonly $: {
      store: ObjectStore;
      client: InProcessClient;
      clock: Clock;
      runtimes: RuntimeMap;
      dataDir: string;
      /** The environment every container starts from (PATH at least). */
      baseEnv: Record<string, string>;
    },
  ) {
    this.volumes = new VolumeFolders($.dataDir);
    this.timers = new VirtualTimers($.clock);
    this.queue = new WorkQueue((key) => {
      this.reconcile(key);
    });
    this.unsubscribe = $.store.subscribe((event) => {
      this.route(event);
    });
    for (const pvc of $.client.list("pvc", undefined)) this.claimAdded(pvc);
    for (const pod of $.client.list("pod", undefined))
      this.queue.add(podKey(meta(pod).namespace ?? "", meta(pod).name ?? ""));
  }

  /** Live process ids, for tests that check nothing leaks. */
  pids(): number[] {
    return this.liveProcesses().flatMap((p) => (p.child.pid === undefined ? [] : [p.child.pid]));
  }

  private liveProcesses(): ContainerProcess[] {
    const all = [...[...this.runs.values()].flatMap((run) => run.processes), ...this.dying];
    return all.filter((p) => p.exit === undefined);
  }

  /** Output of a pod's containers (the last 64 KiB each), for debugging tests. */
  logs(namespace: string, name: string): string {
    const run = this.runs.get(podKey(namespace, name));
    return run === undefined ? "" : run.processes.map((p) => `[${p.name}]\n${p.output}`).join("\n");
  }

  /** The folder behind a PersistentVolumeClaim (created if missing), for tests. */
  claimFolder(namespace: string, name: string): string | undefined {
    const pvc = this.$.client.get("pvc", namespace, name);
    return pvc === undefined ? undefined : this.volumes.claim(namespace, name, meta(pvc).uid ?? "");
  }

  /** Whether work is queued or a process is starting or being killed. */
  get busy(): boolean {
    if (this.queue.busy) return true;
    for (const run of this.runs.values())
      for (const p of run.processes) if (!p.spawned && p.exit === undefined) return true;
    return false;
  }

  async idle(): Promise<void> {
    while (!this.stopped) {
      await this.queue.idle();
      if (!this.busy) return;
      // Process starts are real OS events, not store events: poll briefly for them.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Kills every process (SIGKILL, whole process group) and waits for them to exit. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    this.queue.stop();
    this.timers.stop();
    const exits: Promise<void>[] = [];
    for (const run of this.runs.values()) this.addresses.release(run.ip);
    for (const p of this.liveProcesses()) {
      exits.push(
        new Promise<void>((resolve) => {
          p.child.once("exit", () => {
            resolve();
          });
          p.child.once("error", () => {
            resolve();
          });
        }),
      );
      this.signal(p, "SIGKILL");
    }
    await Promise.all(exits);
    this.runs.clear();
    this.dying.clear();
  }

  private route(event: StoreEvent): void {
    const { client } = this.$;
    const { namespace = "", name = "" } = meta(event.object);
    if (event.resource === client.resource("pod")) {
      this.queue.add(podKey(namespace, name));
    } else if (event.resource === client.resource("pvc")) {
      if (event.type === "DELETED")
        this.volumes.removeClaim(namespace, name, meta(event.object).uid ?? "");
      else {
        this.claimAdded(event.object);
        // Pods waiting for this claim can start now.
        for (const pod of client.list("pod", namespace))
          this.queue.add(podKey(namespace, meta(pod).name ?? ""));
      }
    }
  }

  /** A claim gets its folder and, as with a dynamic provisioner, is Bound at once. */
  private claimAdded(pvc: KubeObject): void {
    const { namespace = "", name = "", uid = "" } = meta(pvc);
    if (meta(pvc).deletionTimestamp !== undefined) return;
    this.volumes.claim(namespace, name, uid);
    if (status(pvc).phase !== "Bound") {
      const request = record(record(spec(pvc).resources).requests).storage;
      this.$.client.mergePatch(
        { kind: "pvc", namespace, name },
        {
          status: {
            phase: "Bound",
            accessModes: spec(pvc).accessModes ?? ["ReadWriteOnce"],
            ...(request === undefined ? {} : { capacity: { storage: request } }),
          },
        },
        "status",
      );
    }
  }

  private faultOf(pod: KubeObject): PodFault | undefined {
    const { namespace = "", name = "" } = meta(pod);
    return this.faults.match({ namespace, name, images: images(pod) });
  }

  private reconcile(key: string): void {
    const [namespace = "", name = ""] = key.split("/");
    const pod = this.$.client.get("pod", namespace, name);
    let run = this.runs.get(key);
    if (run !== undefined && (pod === undefined || meta(pod).uid !== run.uid)) {
      // The pod object is gone (or replaced): its processes go too.
      this.discard(run);
      run = undefined;
    }
    if (pod === undefined) return;
    try {
      if (meta(pod).deletionTimestamp !== undefined) {
        this.terminate(pod, run);
        return;
      }
      const phase = str(status(pod).phase);
      if (phase === "Succeeded" || phase === "Failed") return;
      if (str(spec(pod).nodeName) === undefined) {
        this.schedule(pod);
        return;
      }
      if (run === undefined) this.start(pod);
    } catch {
      // A write raced another writer; the event it caused, or the next one, brings us back.
    }
  }

  private schedule(pod: KubeObject): void {
    const { namespace = "", name = "" } = meta(pod);
    const now = timestamp(this.$.clock);
    const fault = this.faultOf(pod);
    if (fault?.kind === "Unschedulable") {
      const unschedulable = {
        type: "PodScheduled",
        status: "False",
        reason: "Unschedulable",
        message:
          fault.message ??
          "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
        lastProbeTime: null,
        lastTransitionTime: condition(pod, "PodScheduled")?.lastTransitionTime ?? now,
      };
      this.$.client.mergePatch(
        { kind: "pod", namespace, name },
        { status: { phase: "Pending", conditions: [unschedulable] } },
        "status",
      );
      return;
    }
    this.$.client.mergePatch({ kind: "pod", namespace, name }, { spec: { nodeName: NODE_NAME } });
    this.$.client.mergePatch(
      { kind: "pod", namespace, name },
      {
        status: {
          phase: "Pending",
          conditions: [
            { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now },
          ],
        },
      },
      "status",
    );
  }

  /** Resolves every volume a container mounts to a folder, or undefined while a claim is missing. */
  private mounts(pod: KubeObject, container: KubeObject): RuntimeMount[] | undefined {
    const { namespace = "", uid = "" } = meta(pod);
    const volumes = new Map(list(spec(pod).volumes).map((v) => [str(v.name) ?? "", v]));
    const result: RuntimeMount[] = [];
    for (const mount of list(container.volumeMounts)) {
      const volumeName = str(mount.name) ?? "";
      const volume = volumes.get(volumeName);
      if (volume === undefined) continue;
      let hostPath: string | undefined;
      const claimName = str(record(volume.persistentVolumeClaim).claimName);
      if (claimName !== undefined) {
        const pvc = this.$.client.get("pvc", namespace, claimName);
        if (pvc === undefined || meta(pvc).deletionTimestamp !== undefined) return undefined;
        hostPath = this.volumes.claim(namespace, claimName, meta(pvc).uid ?? "");
      } else if (volume.emptyDir !== undefined) {
        hostPath = this.volumes.podFolder(uid, "volumes", volumeName);
      }
      if (hostPath === undefined) continue;
      result.push({
        volume: volumeName,
        mountPath: str(mount.mountPath) ?? "",
        hostPath,
        readOnly: mount.readOnly === true,
      });
    }
    return result;
  }

  private start(pod: KubeObject): void {
    const { namespace = "", name = "", uid = "" } = meta(pod);
    const fault = this.faultOf(pod);
    const now = timestamp(this.$.clock);
    const containers = list(spec(pod).containers);
    if (fault?.kind === "ImagePull") {
      // The first failed pull reports ErrImagePull; every later look is the back-off.
      const pulledBefore = list(status(pod).containerStatuses).some(
        (c) => record(record(c.state).waiting).reason !== undefined,
      );
      const waiting = pulledBefore ? "ImagePullBackOff" : "ErrImagePull";
      this.$.client.mergePatch(
        { kind: "pod", namespace, name },
        {
          status: {
            phase: "Pending",
            startTime: str(status(pod).startTime) ?? now,
            conditions: podConditions(pod, { ready: false, now }),
            containerStatuses: containers.map((c) => ({
              name: str(c.name) ?? "",
              image: str(c.image) ?? "",
              imageID: "",
              ready: false,
              started: false,
              restartCount: 0,
              state: {
                waiting: {
                  reason: waiting,
                  message: `Back-off pulling image "${str(c.image) ?? ""}"`,
                },
              },
            })),
          },
        },
        "status",
      );
      // ErrImagePull turns into ImagePullBackOff on the next look, as the kubelet's back-off does.
      if (waiting === "ErrImagePull") this.queue.add(podKey(namespace, name));
      return;
    }
    const mounts = containers.map((c) => this.mounts(pod, c));
    if (mounts.some((m) => m === undefined)) return; // a claim is missing: wait for its event
    const ip = this.addresses.allocate();
    const run: PodRun = {
      uid,
      namespace,
      name,
      ip,
      processes: [],
      terminating: false,
      cancelKill: undefined,
    };
    this.runs.set(podKey(namespace, name), run);
    const home = this.volumes.podFolder(uid, "home");
    containers.forEach((container, index) => {
      const containerMounts = mounts[index] ?? [];
      const env = containerEnv(pod, container, {
        base: { ...this.$.baseEnv, HOME: home },
        podIP: ip,
        mounts: containerMounts,
      });
      const image = str(container.image) ?? "";
      const exitFault = fault?.kind === "Exit" ? fault : undefined;
      const command =
        exitFault === undefined
          ? runtimeFor(
              this.$.runtimes,
              image,
            )({
              pod,
              container,
              namespace,
              podName: name,
              podUid: uid,
              podIP: ip,
              env,
              mounts: containerMounts,
            })
          : { command: [process.execPath, "-e", `process.exit(${String(exitFault.code)})`] };
      const [file = "", ...args] = command.command;
      // Its own process group, so a runtime that forks (a shell, a package runner) dies whole.
      const child = spawn(file, args, {
        env: { ...env, ...command.env },
        ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const proc: ContainerProcess = {
        name: str(container.name) ?? "",
        image,
        child,
        spawned: false,
        exit: undefined,
        startedAt: undefined,
        output: "",
      };
      const collect = (chunk: Buffer): void => {
        proc.output = (proc.output + chunk.toString()).slice(-LOG_LIMIT);
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      child.once("spawn", () => {
        proc.spawned = true;
        proc.startedAt = timestamp(this.$.clock);
        this.processChanged(run);
      });
      child.once("error", (error) => {
        proc.output += `\n${error.message}`;
        proc.exit ??= { code: 128, signal: null };
        this.processChanged(run);
      });
      child.once("exit", (code, signal) => {
        proc.exit = { code, signal };
        this.dying.delete(proc);
        this.processChanged(run);
      });
      run.processes.push(proc);
    });
  }

  /** A process started or ended: report it, or finish a termination. */
  private processChanged(run: PodRun): void {
    if (this.stopped) return;
    const current = this.$.client.get("pod", run.namespace, run.name);
    if (current === undefined || meta(current).uid !== run.uid) {
      this.discard(run);
      return;
    }
    try {
      if (run.terminating || meta(current).deletionTimestamp !== undefined) {
        this.terminate(current, run);
        return;
      }
      this.writeRunStatus(current, run);
    } catch {
      // Raced with another writer; the next process or store event reports again.
    }
  }

  private writeRunStatus(pod: KubeObject, run: PodRun): void {
    if (run.processes.some((p) => !p.spawned && p.exit === undefined)) return;
    const now = timestamp(this.$.clock);
    const fault = this.faultOf(pod);
    const exited = run.processes.filter((p) => p.exit !== undefined);
    const failed = exited.some((p) => p.exit?.code !== 0);
    const allExited = exited.length === run.processes.length;
    // restartPolicy is not modelled: a container that exits stays exited, and the pod is
    // Failed as soon as one fails (Succeeded once all exited 0).
    const phase = failed ? "Failed" : allExited ? "Succeeded" : "Running";
    if (failed) for (const p of run.processes) if (p.exit === undefined) this.signal(p, "SIGKILL");
    const ready = phase === "Running" && fault?.kind !== "NotReady";
    const withIp = fault?.kind !== "NoPodIP";
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
    this.$.client.mergePatch(
      { kind: "pod", namespace: run.namespace, name: run.name },
      {
        status: {
          phase,
          hostIP: HOST_IP,
          hostIPs: [{ ip: HOST_IP }],
          ...(withIp ? { podIP: run.ip, podIPs: [{ ip: run.ip }] } : { podIP: null, podIPs: null }),
          startTime: str(status(pod).startTime) ?? now,
          conditions: podConditions(pod, { ready, now }),
          containerStatuses,
        },
      },
      "status",
    );
  }

  /**
   * Graceful termination: SIGTERM now, SIGKILL when the deletionTimestamp (now + grace) comes on
   * the clock; the object is removed once every process has ended (K17).
   */
  private terminate(pod: KubeObject, run: PodRun | undefined): void {
    const { namespace = "", name = "" } = meta(pod);
    const live = run?.processes.filter((p) => p.exit === undefined) ?? [];
    if (run === undefined || live.length === 0) {
      if (run !== undefined) this.discard(run);
      this.$.client.finishTermination(namespace, name);
      return;
    }
    if (run.terminating) return;
    run.terminating = true;
    for (const p of live) this.signal(p, "SIGTERM");
    const deadline = Date.parse(meta(pod).deletionTimestamp ?? "");
    run.cancelKill = this.timers.at(Number.isNaN(deadline) ? 0 : deadline, () => {
      for (const p of run.processes) if (p.exit === undefined) this.signal(p, "SIGKILL");
    });
  }

  /** Forgets a run: kills what is left of it and frees its address and folders. */
  private discard(run: PodRun): void {
    run.cancelKill?.();
    for (const p of run.processes) {
      if (p.exit !== undefined) continue;
      this.dying.add(p);
      this.signal(p, "SIGKILL");
    }
    this.addresses.release(run.ip);
    this.volumes.removePod(run.uid);
    if (this.runs.get(podKey(run.namespace, run.name)) === run)
      this.runs.delete(podKey(run.namespace, run.name));
  }

  private signal(p: ContainerProcess, signal: NodeJS.Signals): void {
    const pid = p.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone; signal the process itself in case it left its group.
      try {
        p.child.kill(signal);
      } catch {
        // Already exited.
      }
    }
  }
}
