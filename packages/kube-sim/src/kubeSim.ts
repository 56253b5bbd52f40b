/**
 * Starting and stopping a simulated API server: wires the store, the write paths, the garbage
 * collector and the HTTP edge, and hands tests the controls they need.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AdmissionHook } from "./admission.ts";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import { ControllerManager } from "./controller/controllerManager.ts";
import { DeletionSystem } from "./deletion.ts";
import { validatingAdmissionPolicyHook } from "./admissionPolicy/policyHook.ts";
import { faultInterceptor } from "./faults/faultInterceptor.ts";
import { FaultInjector } from "./faults/faultRules.ts";
import { DEFAULT_REQUEST_LOG_LIMIT, RequestLog } from "./faults/requestLog.ts";
import { containerBaseEnv } from "./env.ts";
import { GarbageCollector } from "./garbageCollector.ts";
import { requestListener } from "./httpServer.ts";
import { InProcessClient } from "./inProcessClient.ts";
import { kubeConfigYaml } from "./kubeconfig.ts";
import { Kubelet } from "./kubelet/kubelet.ts";
import type { RuntimeMap } from "./kubelet/runtimes.ts";
import type { NameSuffix } from "./names.ts";
import { randomSuffix } from "./names.ts";
import { ObjectRegistry } from "./objectRegistry.ts";
import { ResourceHandlers } from "./resourceHandlers.ts";
import { ResourceRegistry, builtinResourceTypes } from "./resourceTypes.ts";
import { DEFAULT_HISTORY_WINDOW, ObjectStore } from "./store.ts";
import { WatchHub } from "./watchStream.ts";

export interface KubeSimOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  clock?: Clock;
  /** ValidatingAdmissionPolicy evaluation (§6); on unless `false`, as a cluster always runs it. */
  validatingAdmissionPolicy?: boolean;
  /** Seeds the RNG of fault rules given a `rate` (default 1). */
  faultSeed?: number;
  /** How many requests the request log keeps (default 10 000). */
  requestLogLimit?: number;
  /** How many events the watch history keeps before older versions answer 410 Expired. */
  historyWindow?: number;
  /** Validating admission hooks, run in order after schema validation (part 2 adds VAP). */
  admission?: AdmissionHook[];
  /** The random part of generated names; tests inject a fixed one to force collisions. */
  nameSuffix?: NameSuffix;
  /** Runs the agent-sandbox controllers (§8.1–8.5). Off by default; `pnpm kube-sim` turns it on. */
  controller?: boolean;
  /**
   * Runs the fake scheduler and kubelet (§8.6): pods are scheduled and their containers run as
   * real processes, by image through `runtimes`; PVCs are folders under `dataDir` (by default a
   * fresh temporary folder, removed on close). Off when absent.
   */
  kubelet?: KubeletOptions;
}

export interface KubeletOptions {
  runtimes?: RuntimeMap;
  dataDir?: string;
}

export interface KubeSim extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly store: ObjectStore;
  readonly registry: ObjectRegistry;
  readonly types: ResourceRegistry;
  /** Fault injection (409/422/429/500/503, latency, hangs, dropped watches). */
  readonly faults: FaultInjector;
  /** Every request received, with its answer and any injected fault. */
  readonly requests: RequestLog;
  /** Appendable: hooks added later apply to the next request. */
  readonly admission: AdmissionHook[];
  kubeConfig(namespace?: string): string;
  /** Drops the whole watch history: every earlier resourceVersion now answers 410 Expired. */
  compact(): void;
  /** Ends every open watch stream, as an API server restart or a load balancer would. */
  closeWatches(): void;
  /**
   * Resolves once garbage collection, the controllers and the kubelet have nothing queued: every
   * reaction to the writes so far has run. It does not wait for timers on the clock (advance a
   * ManualClock for those) nor for processes still in their grace period.
   */
  settled(): Promise<void>;
  /** The fake kubelet, when enabled: faults, process ids, logs and volume folders for tests. */
  readonly kubelet: Kubelet | undefined;
  close(): Promise<void>;
}

const INITIAL_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

export async function startKubeSim(options: KubeSimOptions = {}): Promise<KubeSim> {
  const clock = options.clock ?? systemClock;
  const store = new ObjectStore(options.historyWindow ?? DEFAULT_HISTORY_WINDOW);
  const types = new ResourceRegistry(builtinResourceTypes());
  // Empty while the initial namespaces are created: they exist before any policy, as in a cluster.
  const admission: AdmissionHook[] = [];
  const registry = new ObjectRegistry({
    store,
    types,
    clock,
    admission,
    nameSuffix: options.nameSuffix ?? randomSuffix,
  });
  const deletion = new DeletionSystem({ store, registry, clock });
  const gc = new GarbageCollector({ store, types, registry, deletion });
  const hub = new WatchHub();
  const handlers = new ResourceHandlers({ store, registry, deletion });
  const namespaces = types.namespaces();
  for (const name of INITIAL_NAMESPACES) {
    registry.create(
      { type: namespaces, version: "v1", namespace: undefined },
      {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name },
        spec: { finalizers: ["kubernetes"] },
        status: { phase: "Active" },
      },
      { warnings: [], fieldValidation: "Ignore" },
    );
  }

  if (options.validatingAdmissionPolicy !== false) {
    admission.push(validatingAdmissionPolicyHook({ store, types }));
  }
  admission.push(...(options.admission ?? []));

  const faults = new FaultInjector(options.faultSeed ?? 1);
  const requests = new RequestLog(options.requestLogLimit ?? DEFAULT_REQUEST_LOG_LIMIT);
  const preDispatch = faultInterceptor({ types, faults, log: requests });
  const server = createServer(
    requestListener({
      store,
      types,
      registry,
      handlers,
      hub,
      preDispatch,
      onBody: (req, body) => {
        requests.recordBody(req, body);
      },
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  // Started once the server listens, so a failed listen leaves no processes or folders behind.
  const client = new InProcessClient({ store, types, registry, deletion });
  const controller =
    options.controller === true ? new ControllerManager({ store, client, clock }) : undefined;
  const ownDataDir =
    options.kubelet !== undefined && options.kubelet.dataDir === undefined
      ? mkdtempSync(join(tmpdir(), "kube-sim-data-"))
      : undefined;
  const kubelet =
    options.kubelet === undefined
      ? undefined
      : new Kubelet({
          store,
          client,
          clock,
          runtimes: options.kubelet.runtimes ?? {},
          dataDir: options.kubelet.dataDir ?? ownDataDir ?? "",
          baseEnv: containerBaseEnv(),
        });
  const settled = async (): Promise<void> => {
    // Each part's work can start another's (a pod write wakes the controller, a delete the GC).
    for (;;) {
      await gc.settled();
      await controller?.idle();
      await kubelet?.idle();
      if (!gc.busy && controller?.busy !== true && kubelet?.busy !== true) return;
    }
  };

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      controller?.stop();
      gc.stop();
      faults.releaseAll();
      hub.closeAll();
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    }).then(async () => {
      await kubelet?.stop();
      if (ownDataDir !== undefined) rmSync(ownDataDir, { recursive: true, force: true });
    });
    return closed;
  };
  return {
    url,
    store,
    faults,
    requests,
    registry,
    types,
    admission,
    kubeConfig: (namespace) => kubeConfigYaml(url, namespace),
    compact: () => {
      store.compact();
    },
    closeWatches: () => {
      hub.closeAll();
    },
    settled,
    kubelet,
    close,
    [Symbol.asyncDispose]: close,
  };
}
