import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { S3Client } from "@aws-sdk/client-s3";
import type { DbClient } from "@berth/db";
import {
  AdmissionSystem,
  ArchiveRestorer,
  type ArchiveStore,
  BackendRegistry,
  createS3Client,
  DatabaseClock,
  defaultLeaseConfig,
  FilesystemArchiveStore,
  LeaseSystem,
  LocalBackend,
  S3ArchiveStore,
  SpawnerSystem,
  WarmingSystem,
  WorkspaceArchiver,
} from "@berth/sandbox";
import { killBox } from "@berth/sandbox/testing";
import { MarkedBackend, PhaseMarks } from "./phaseMarks.ts";
import { markCleanup } from "./quietDisk.ts";
import { S3ServerProcess } from "./s3ServerProcess.ts";

export const run = promisify(execFile);

const SECRET = "bench-archives-secret-0123456789abcdef";

export interface BenchSession {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly sandboxGroupId: string;
}

/** Where the archive store keeps blobs: a local folder, or a bucket of a local S3 server. */
export type StoreChoice = "filesystem" | "s3";

/** The S3 server a world's store uses, for a baseline that talks to the same one. */
export interface S3Bucket {
  /** A client of its own (the store's carries the store's middleware). */
  readonly client: S3Client;
  readonly bucket: string;
}

interface S3Setup {
  readonly server: S3ServerProcess;
  /** The store's own client, destroyed with the world. */
  readonly storeClient: S3Client;
  readonly bucket: S3Bucket;
}

/**
 * Everything one benchmark run needs, in one temporary folder: the local backend's data folder
 * (real boxd processes), the archive store (a folder there, or an S3 server in a child process),
 * and scratch space for trees and tar.
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

  readonly db: DbClient;
  readonly root: string;
  /** The S3 store's server and a client of the baseline's, when the world keeps blobs there. */
  readonly s3: S3Setup | undefined;

  private constructor(options: { db: DbClient; root: string; store: ArchiveStore; s3?: S3Setup }) {
    const { db, root, store } = options;
    this.db = db;
    this.root = root;
    this.s3 = options.s3;
    const resources = { db, clock: new DatabaseClock(db), config: defaultLeaseConfig };
    this.local = new LocalBackend({ dataDir: this.dataDir, secret: SECRET, isolation: "auto" });
    this.backend = new MarkedBackend(this.local, this.marks);
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

  static async create(db: DbClient, choice: StoreChoice = "filesystem"): Promise<ArchiveWorld> {
    const root = await mkdtemp(join(tmpdir(), "berth-bench-archives-"));
    if (choice === "filesystem") {
      const store = new FilesystemArchiveStore({ root: join(root, "archives") });
      return new ArchiveWorld({ db, root, store });
    }
    let server;
    try {
      server = await S3ServerProcess.start();
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
    const { endpoint, bucket, region, credentials } = server.endpoint;
    const config = { endpoint, region, credentials, forcePathStyle: true };
    // As archiveStoreFromEnv builds it: default part size and queue, pending uploads recorded.
    const storeClient = createS3Client(config);
    const s3Store = new S3ArchiveStore({ client: storeClient, bucket, db });
    return new ArchiveWorld({
      db,
      root,
      store: s3Store,
      s3: { server, storeClient, bucket: { client: createS3Client(config), bucket } },
    });
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
      // The S3 server removes its objects as it stops: before the cleanup is marked.
      try {
        this.s3?.storeClient.destroy();
        this.s3?.bucket.client.destroy();
        await this.s3?.server[Symbol.asyncDispose]();
      } finally {
        await rm(this.root, { recursive: true, force: true });
        await markCleanup();
      }
    }
  }
}

/** Flushes dirty pages, so a timed step does not pay for the untimed writes before it. */
export async function settleDisk(): Promise<void> {
  await run("sync");
}
