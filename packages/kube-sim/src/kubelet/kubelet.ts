/**
 * The fake scheduler and kubelet (§8.6): binds pods to the one node, sets up their volumes
 * (claims, emptyDirs, Secrets), runs each container as a real child process chosen by the
 * runtime map with its env (downward API, Secrets), reports phases, conditions and the waiting
 * reasons and Events of a pod that cannot start yet, and ends processes on deletion with SIGTERM,
 * then SIGKILL once the grace period has passed on the injected clock. Every process it started
 * is killed on `stop()`.
 */
import { timestamp } from "../clock.ts";
import type { Clock } from "../clock.ts";
import { list, record, spec, status, str } from "../controller/fields.ts";
import type { InProcessClient } from "../inProcessClient.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { ObjectStore, StoreEvent } from "../store.ts";
import { VirtualTimers } from "../virtualTimers.ts";
import { WorkQueue } from "../workQueue.ts";
import type { ContainerProcess } from "./containerProcess.ts";
import { signalContainer, spawnContainer } from "./containerProcess.ts";
import type { ContainerEnv } from "./downwardApi.ts";
import { NODE_NAME, containerEnv } from "./downwardApi.ts";
import { KubeletEvents } from "./kubeletEvents.ts";
import { PodAddresses } from "./podAddresses.ts";
import { scheduledCondition, unschedulableCondition } from "./podConditions.ts";
import type { PodFault } from "./podFaults.ts";
import { PodFaults } from "./podFaults.ts";
import type { MountedVolume } from "./podVolumes.ts";
import { PodVolumes, mountsOf } from "./podVolumes.ts";
import type { RuntimeMap } from "./runtimes.ts";
import { runtimeFor } from "./runtimes.ts";
import { runPhase, runStatus } from "./runStatus.ts";
import { VolumeFolders } from "./volumeFolders.ts";
import type { Waiting } from "./waitingStatus.ts";
import { imagePullReason, waitingStatus } from "./waitingStatus.ts";

interface PodRun {
  uid: string;
  namespace: string;
  name: string;
  ip: string;
  /** The volumes set up for it; secret volumes are rewritten when their Secret changes. */
  volumes: ReadonlyMap<string, MountedVolume>;
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
  private readonly podVolumes: PodVolumes;
  private readonly events: KubeletEvents;
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
    this.podVolumes = new PodVolumes({ client: $.client, folders: this.volumes });
    this.events = new KubeletEvents({ client: $.client, clock: $.clock });
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
      signalContainer(p, "SIGKILL");
    }
    await Promise.all(exits);
    this.runs.clear();
    this.dying.clear();
  }

  private route(event: StoreEvent): void {
    const { client } = this.$;
    const { namespace = "", name = "", uid = "" } = meta(event.object);
    if (event.resource === client.resource("pod")) {
      if (event.type === "DELETED") {
        this.events.forget(uid);
        // A pod that never ran has no run to discard, but may have volume folders.
        if (![...this.runs.values()].some((run) => run.uid === uid)) this.volumes.removePod(uid);
      }
      this.queue.add(podKey(namespace, name));
    } else if (event.resource === client.resource("pvc")) {
      if (event.type === "DELETED")
        this.volumes.removeClaim(namespace, name, meta(event.object).uid ?? "");
      else {
        this.claimAdded(event.object);
        this.requeuePods(namespace);
      }
    } else if (event.resource === client.resource("secret")) {
      if (event.type !== "DELETED") this.secretChanged(namespace, name);
      this.requeuePods(namespace);
    }
  }

  /** Pods waiting for a claim or a Secret in this namespace can start now. */
  private requeuePods(namespace: string): void {
    for (const pod of this.$.client.list("pod", namespace))
      this.queue.add(podKey(namespace, meta(pod).name ?? ""));
  }

  /** Running pods see a Secret's new content in their secret volumes (env stays as started). */
  private secretChanged(namespace: string, name: string): void {
    for (const run of this.runs.values()) {
      if (run.namespace !== namespace || run.terminating) continue;
      try {
        this.podVolumes.refreshSecret(namespace, name, run.volumes);
      } catch {
        // The pod's folder went with it; nothing to refresh.
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
      const unschedulable = unschedulableCondition(pod, fault.message, now);
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
      { status: { phase: "Pending", conditions: [scheduledCondition(now)] } },
      "status",
    );
  }

  /** Writes a not-yet-started pod's Pending status with each container's waiting reason. */
  private writeWaiting(
    pod: KubeObject,
    waiting: (container: KubeObject, index: number) => Waiting,
  ): void {
    const { namespace = "", name = "" } = meta(pod);
    const now = timestamp(this.$.clock);
    this.$.client.mergePatch(
      { kind: "pod", namespace, name },
      waitingStatus(pod, waiting, now),
      "status",
    );
  }

  /**
   * Starts a scheduled pod, in the kubelet's order: volumes (a failed SetUp is a FailedMount event
   * and ContainerCreating), images, then each container's config (an unresolvable secretKeyRef is
   * CreateContainerConfigError). A pod waiting on any of these is looked at again on the events
   * of its claims and Secrets. Its containers start together: none starts while one cannot.
   */
  private start(pod: KubeObject): void {
    const { namespace = "", name = "", uid = "" } = meta(pod);
    const fault = this.faultOf(pod);
    const containers = list(spec(pod).containers);
    const setUp = this.podVolumes.setUp(pod);
    if (setUp.kind === "waitingForClaim") return;
    if (setUp.kind === "failedMount") {
      // pkg/volume/util/operationexecutor: `MountVolume.SetUp failed for volume "<v>" : <err>`.
      this.events.warn(pod, {
        reason: "FailedMount",
        message: `MountVolume.SetUp failed for volume "${setUp.volume}" : ${setUp.message}`,
      });
      this.writeWaiting(pod, () => ({ reason: "ContainerCreating" }));
      return;
    }
    if (fault?.kind === "ImagePull") {
      const reason = imagePullReason(pod);
      this.writeWaiting(pod, (c) => ({
        reason,
        message: `Back-off pulling image "${str(c.image) ?? ""}"`,
      }));
      // ErrImagePull turns into ImagePullBackOff on the next look, as the kubelet's back-off does.
      if (reason === "ErrImagePull") this.queue.add(podKey(namespace, name));
      return;
    }
    const ip = this.addresses.allocate();
    const home = this.volumes.podFolder(uid, "home");
    const mounts = containers.map((c) => mountsOf(c, setUp.volumes));
    const envs: ContainerEnv[] = containers.map((container, index) =>
      containerEnv(pod, container, {
        base: { ...this.$.baseEnv, HOME: home },
        podIP: ip,
        mounts: mounts[index] ?? [],
        secret: (secretName) => this.$.client.get("secret", namespace, secretName),
      }),
    );
    if (envs.some((e) => e.kind === "configError")) {
      this.addresses.release(ip);
      this.configError(pod, envs);
      return;
    }
    const run: PodRun = {
      uid,
      namespace,
      name,
      ip,
      volumes: setUp.volumes,
      processes: [],
      terminating: false,
      cancelKill: undefined,
    };
    this.runs.set(podKey(namespace, name), run);
    containers.forEach((container, index) => {
      const containerMounts = mounts[index] ?? [];
      const built = envs[index];
      const env = built?.kind === "env" ? built.env : {};
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
      const proc = spawnContainer(
        { name: str(container.name) ?? "", image },
        { ...command, baseEnv: env },
        {
          started: (started) => {
            started.startedAt = timestamp(this.$.clock);
            this.processChanged(run);
          },
          ended: (ended) => {
            this.dying.delete(ended);
            this.processChanged(run);
          },
        },
      );
      run.processes.push(proc);
    });
  }

  /**
   * A container whose config cannot be made: the runtime manager's `startContainer` records a
   * `Failed` event `Error: <err>` and reports CreateContainerConfigError with the error as message
   * (pkg/kubelet/kuberuntime). The pod's other containers wait as ContainerCreating here.
   */
  private configError(pod: KubeObject, envs: ContainerEnv[]): void {
    const containers = list(spec(pod).containers);
    envs.forEach((env, index) => {
      if (env.kind !== "configError") return;
      this.events.warn(pod, {
        reason: "Failed",
        message: `Error: ${env.message}`,
        fieldPath: `spec.containers{${str(containers[index]?.name) ?? ""}}`,
      });
    });
    this.writeWaiting(pod, (_container, index) => {
      const env = envs[index];
      return env?.kind === "configError"
        ? { reason: "CreateContainerConfigError", message: env.message }
        : { reason: "ContainerCreating" };
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
    const fault = this.faultOf(pod);
    // A failed container takes the pod down: what is left of it is killed.
    if (runPhase(run.processes) === "Failed")
      for (const p of run.processes) if (p.exit === undefined) signalContainer(p, "SIGKILL");
    this.$.client.mergePatch(
      { kind: "pod", namespace: run.namespace, name: run.name },
      runStatus(pod, run, {
        now: timestamp(this.$.clock),
        notReady: fault?.kind === "NotReady",
        noPodIP: fault?.kind === "NoPodIP",
      }),
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
    for (const p of live) signalContainer(p, "SIGTERM");
    const deadline = Date.parse(meta(pod).deletionTimestamp ?? "");
    run.cancelKill = this.timers.at(Number.isNaN(deadline) ? 0 : deadline, () => {
      for (const p of run.processes) if (p.exit === undefined) signalContainer(p, "SIGKILL");
    });
  }

  /** Forgets a run: kills what is left of it and frees its address and folders. */
  private discard(run: PodRun): void {
    run.cancelKill?.();
    const live = run.processes.filter((p) => p.exit === undefined);
    for (const p of live) {
      this.dying.add(p);
      signalContainer(p, "SIGKILL");
    }
    // The address is free once the killed processes have exited: a pod given it sooner can find
    // its port still bound (EADDRINUSE) by the pod it replaces, which no cluster does to a pod.
    void Promise.all(live.map((p) => exited(p))).then(() => {
      this.addresses.release(run.ip);
    });
    this.volumes.removePod(run.uid);
    if (this.runs.get(podKey(run.namespace, run.name)) === run)
      this.runs.delete(podKey(run.namespace, run.name));
  }
}

/** Settles once the process has exited (or never started). */
function exited(p: ContainerProcess): Promise<void> {
  if (p.exit !== undefined) return Promise.resolve();
  return new Promise((resolve) => {
    p.child.once("exit", () => {
      resolve();
    });
    p.child.once("error", () => {
      resolve();
    });
  });
}
