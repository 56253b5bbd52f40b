/**
 * Berth on kube-sim for the benchmark: kube-sim on its real clock with the agent-sandbox
 * controller and a kubelet running boxd (Berth's SandboxTemplate applied), real Postgres, and the
 * product's own path over them — the lease, the SpawnerSystem, and the Kubernetes backend as
 * backendsFromEnv builds it from a deployment's env (its default poll interval and deadlines),
 * and the reaper whose drain suspends a box for the next acquire to resume.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DbClient } from "@berth/db";
import type { BoxClient } from "@berth/box-protocol";
import {
  AdmissionSystem,
  ArchiveRestorer,
  backendDrainPort,
  backendsFromEnv,
  defaultLeaseConfig,
  FilesystemArchiveStore,
  LeaseSystem,
  ReaperSystem,
  SpawnerSystem,
  WorkspaceArchiver,
  type Backend,
  type LeaseConfig,
  type LeaseSnapshot,
} from "@berth/sandbox";
import {
  BOXD_TEST_IMAGE,
  kubeBoxWorld,
  ManualClock,
  type KubeBoxWorld,
} from "@berth/sandbox/testing";

export interface BerthSession {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly sandboxGroupId: string;
}

/** A box the bench holds: established, its first command run, its holder not yet released. */
export interface BerthBox {
  readonly instanceId: string;
  readonly lease: LeaseSnapshot;
  readonly holderId: string;
  readonly client: BoxClient;
  /** Where the timed part went: the lease's acquire, the spawner's establish, connect + exec. */
  readonly phases: {
    readonly acquireMs: number;
    readonly establishMs: number;
    readonly execMs: number;
  };
}

export class KubeBenchWorld implements AsyncDisposable {
  readonly leases: LeaseSystem;
  readonly admissions: AdmissionSystem;
  readonly spawner: SpawnerSystem;
  readonly reaper: ReaperSystem;
  readonly backend: Backend;
  /** The lease clock: moved past the idle grace so the reaper drains (suspends) a released box. */
  readonly clock = new ManualClock();
  readonly config: LeaseConfig = defaultLeaseConfig;

  private constructor(
    readonly kube: KubeBoxWorld,
    readonly db: DbClient,
    private readonly place: { readonly storeRoot: string; readonly warmPool: string | undefined },
  ) {
    const { storeRoot, warmPool } = place;
    const configured = backendsFromEnv({
      env: {
        BERTH_BACKEND: "kubernetes",
        BERTH_KUBE_TEMPLATE: kube.profile.template,
        BERTH_KUBE_IMAGE: BOXD_TEST_IMAGE,
        BERTH_ALLOW_UNISOLATED: true,
        ...(warmPool === undefined ? {} : { BERTH_KUBE_WARM_POOL: warmPool }),
      },
      local: undefined,
      kubernetes: {
        secret: kube.secret,
        installationId: () => Promise.resolve(kube.installationId),
        source: { kind: "yaml", text: kube.sim.kubeConfig() },
      },
    });
    if (configured.kubernetes === undefined)
      throw new Error("the kubernetes backend is not configured");
    this.backend = configured.kubernetes;
    const resources = { db, clock: this.clock, config: this.config };
    const store = new FilesystemArchiveStore({ root: storeRoot });
    this.leases = new LeaseSystem(resources);
    this.admissions = new AdmissionSystem(resources);
    this.spawner = new SpawnerSystem({
      resources,
      backends: configured.registry,
      restorer: new ArchiveRestorer({ db, store }),
    });
    const archiver = new WorkspaceArchiver({ resources, backends: configured.registry, store });
    this.reaper = new ReaperSystem({
      resources,
      drainPort: backendDrainPort({ backends: configured.registry, archiver }),
    });
  }

  /**
   * A new kube-sim and Berth over it; with `warmPool`, the operator's pool of that name
   * (deploy/kubernetes/warm-pool.yaml, one member) is applied and Berth claims from it.
   */
  static async create(db: DbClient, options: { warmPool?: string } = {}): Promise<KubeBenchWorld> {
    const kube = await kubeBoxWorld();
    if (options.warmPool !== undefined) await kube.applyWarmPool(options.warmPool, 1);
    const storeRoot = await mkdtemp(join(tmpdir(), "berth-bench-kube-"));
    return new KubeBenchWorld(kube, db, { storeRoot, warmPool: options.warmPool });
  }

  async session(): Promise<BerthSession> {
    const workspace = await this.db.workspace.create({
      data: { slug: `bench-kube-${crypto.randomUUID()}`, name: "Bench" },
    });
    const sandboxGroupId = crypto.randomUUID();
    const session = await this.db.session.create({
      data: { workspaceId: workspace.id, sandboxGroupId, backend: "kubernetes" },
    });
    return { workspaceId: workspace.id, sessionId: session.id, sandboxGroupId };
  }

  /**
   * Acquire as the spawner → establish (create or resume) → the first `true` on the box: the
   * timed part. The holder stays until `work` releases it.
   */
  async acquireAndExec(session: BerthSession): Promise<BerthBox> {
    const started = performance.now();
    const holderId = `direct:bench-${crypto.randomUUID()}`;
    const outcome = await this.leases.acquire({ ...session, kind: "direct", holderId });
    if (outcome.role !== "spawner") throw new Error(`expected a spawner, got ${outcome.role}`);
    const acquired = performance.now();
    const established = await this.spawner.establish(outcome.lease);
    const ready = performance.now();
    const client = await this.backend.connect(established.instanceId);
    const result = await client.exec({ argv: ["true"] });
    if (result.exitCode !== 0) throw new Error("`true` failed in the box");
    return {
      instanceId: established.instanceId,
      lease: established.lease,
      holderId,
      client,
      phases: {
        acquireMs: acquired - started,
        establishMs: ready - acquired,
        execMs: performance.now() - ready,
      },
    };
  }

  /**
   * A write admitted and settled as box services make one (so the drain keeps the workspace:
   * a box that never admitted a write is stopped, not suspended), then the holder released.
   */
  async work(session: BerthSession, box: BerthBox): Promise<void> {
    const admitted = await this.admissions.admit({
      ...session,
      leaseId: box.lease.id,
      expectedEpoch: box.lease.epoch,
      instanceId: box.instanceId,
      holderKind: "direct",
      holderId: box.holderId,
      routeTargetId: null,
      routeEpoch: 0,
      operation: "exec",
    });
    if (!admitted.admitted) throw new Error(`write not admitted: ${admitted.reason}`);
    const result = await box.client.exec({ argv: ["sh", "-c", "echo kept > kept.txt"] });
    await this.admissions.settle({
      workspaceId: session.workspaceId,
      admissionId: admitted.admissionId,
      outcome: result.exitCode === 0 ? "resolved" : "rejected",
    });
    if (result.exitCode !== 0) throw new Error(`the write failed: ${result.stderr}`);
    await this.leases.release({
      workspaceId: session.workspaceId,
      leaseId: box.lease.id,
      kind: "direct",
      holderId: box.holderId,
    });
  }

  /** The idle grace passes and the reaper drains the session's box: suspended, disk kept. */
  async suspend(session: BerthSession, instanceId: string): Promise<void> {
    this.clock.advance(this.config.idleGraceMs);
    const report = await this.reaper.sweepOnce();
    const lease = await this.leases.readByGroup(session);
    if (lease?.suspendedInstanceId !== instanceId)
      throw new Error(
        `the drain did not suspend box ${instanceId}: ${JSON.stringify(report.drains)}`,
      );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.kube[Symbol.asyncDispose]();
    await rm(this.place.storeRoot, { recursive: true, force: true });
  }
}
