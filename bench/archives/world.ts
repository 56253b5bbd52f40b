import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { DbClient } from "@berth/db";
import {
  AdmissionSystem,
  ArchiveRestorer,
  BackendRegistry,
  DatabaseClock,
  defaultLeaseConfig,
  FilesystemArchiveStore,
  LeaseSystem,
  LocalBackend,
  SpawnerSystem,
  WarmingSystem,
  WorkspaceArchiver,
} from "@berth/sandbox";
import { killBox } from "@berth/sandbox/testing";
import { MarkedBackend, PhaseMarks } from "./phaseMarks.ts";
import { markCleanup } from "./quietDisk.ts";

export const run = promisify(execFile);

const SECRET = "bench-archives-secret-0123456789abcdef";

export interface BenchSession {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly sandboxGroupId: string;
}

/**
 * Everything one benchmark run needs, in one temporary folder: the local backend's data folder
 * (real boxd processes), the filesystem archive store, and scratch space for trees and tar.
 */
export class ArchiveWorld implements AsyncDisposable {
  readonly marks = new PhaseMarks();
  readonly leases: LeaseSystem;
  readonly warming: WarmingSystem;
  readonly admissions: AdmissionSystem;
  readonly spawner: SpawnerSystem;
  readonly archiver: WorkspaceArchiver;
  readonly local: LocalBackend;
  readonly backend: MarkedBackend;

  private constructor(
    readonly db: DbClient,
    readonly root: string,
  ) {
    const resources = { db, clock: new DatabaseClock(db), config: defaultLeaseConfig };
    this.local = new LocalBackend({ dataDir: this.dataDir, secret: SECRET, isolation: "auto" });
    this.backend = new MarkedBackend(this.local, this.marks);
    const store = new FilesystemArchiveStore({ root: join(root, "archives") });
    const onProgress = this.marks.onProgress;
    const restorer = new ArchiveRestorer({ db, store, onProgress });
    this.leases = new LeaseSystem(resources);
    this.warming = new WarmingSystem(resources);
    this.admissions = new AdmissionSystem(resources);
    this.spawner = new SpawnerSystem({
      resources,
      backends: BackendRegistry.of(this.backend),
      restorer,
    });
    this.archiver = new WorkspaceArchiver({
      resources,
      backends: BackendRegistry.of(this.backend),
      store,
      onProgress,
    });
  }

  static async create(db: DbClient): Promise<ArchiveWorld> {
    return new ArchiveWorld(db, await mkdtemp(join(tmpdir(), "berth-bench-archives-")));
  }

  get dataDir(): string {
    return join(this.root, "data");
  }

  /** Where the local backend keeps a box's workspace (see boxFolder.ts). */
  workspaceOf(instanceId: string): string {
    return join(this.dataDir, "boxes", instanceId, "workspace");
  }

  /**
   * SIGKILLs a box's processes and leaves its folder for the run's end. Removing thousands of
   * files just before a timed extraction makes it several times slower on ext4 without a
   * journal, as this machine's disk is: for up to 6 minutes, every new inode's allocation steps
   * past each recently deleted one (`recently_deleted` led a `perf record -a` of `tar -xzf`; see
   * quietDisk.ts). So no timed step of either side follows a removal: both keep what they wrote
   * until the end.
   */
  async lose(instanceId: string): Promise<void> {
    await killBox(instanceId);
  }

  /** A workspace with one session, its own sandbox group (as leaseFixture's seedSession). */
  async seedSession(): Promise<BenchSession> {
    const workspace = await this.db.workspace.create({
      data: { slug: `bench-archives-${crypto.randomUUID()}`, name: "Bench archives" },
    });
    const sandboxGroupId = crypto.randomUUID();
    const session = await this.db.session.create({
      data: { workspaceId: workspace.id, sandboxGroupId, backend: "local" },
    });
    return { workspaceId: workspace.id, sessionId: session.id, sandboxGroupId };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      for (const box of await this.local.inventory()) await this.local.terminate(box.instanceId);
    } finally {
      await rm(this.root, { recursive: true, force: true });
      await markCleanup();
    }
  }
}

/** Flushes dirty pages, so a timed step does not pay for the untimed writes before it. */
export async function settleDisk(): Promise<void> {
  await run("sync");
}
