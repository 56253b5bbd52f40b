import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, realpath, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { createBoxClient, deriveBoxToken, type BoxClient } from "@berth/box-protocol";
import {
  BackendError,
  noBoxLimits,
  type Backend,
  type BoxConfinement,
  type BoxInfo,
  type BoxMetadata,
  type CreateBoxInput,
  type CreatedBox,
  type ReadyOptions,
} from "../../spawner/backend.ts";
import {
  executionProfileSchema,
  profileFingerprint,
  type ExecutionProfile,
} from "../../spawner/executionProfile.ts";
import { waitUntilServing } from "../../spawner/readiness.ts";
import {
  boxesFolder,
  boxLayout,
  boxMetadataSchema,
  confinementOf,
  listInstanceIds,
  pathExists,
  readBoxRecord,
  writeBoxRecord,
  type BoxdProcess,
  type BoxLayout,
  type BoxRecord,
} from "./boxFolder.ts";
import { withBoxLock } from "./boxLock.ts";
import { cgroupParentFor, recordedLimits } from "./boxLimits.ts";
import { isHealthy, killStrays, startBoxd, stopBoxd } from "./boxProcess.ts";
import { resolveNetwork } from "./boxNetwork.ts";
import { prepareBoxUser, releaseBoxUser, type BoxUser } from "./boxUsers.ts";
import { resolveIsolation, type ResolvedIsolation } from "./bubblewrap.ts";
import type { BoxCgroups } from "./cgroups/cgroupPort.ts";
import { detectCgroups } from "./cgroups/detectCgroups.ts";
import { instanceIdFor, isInstanceId } from "./instanceIds.ts";
import { toBackendError } from "./localErrors.ts";
import { settingsFrom, type LocalBackendOptions, type Settings } from "./localSettings.ts";
import { isRunning, type ProcessIdentity } from "../../processes/processInfo.ts";

const MAX_KNOWN_CLIENTS = 1024;

interface KnownClient {
  readonly boxd: ProcessIdentity;
  readonly recordFile: string;
  readonly client: BoxClient;
}

/**
 * Boxes as boxd processes on this machine, optionally inside bubblewrap. Each box is a folder
 * with a box.json record; boxd runs detached, so web and worker restarts leave boxes running,
 * and any LocalBackend over the same data folder (in any process) picks them up.
 */
export class LocalBackend implements Backend {
  readonly kind = "local" as const;
  readonly #settings: Settings;
  #dataDir: Promise<string> | undefined;
  /**
   * Clients of the boxds this backend has connected to. A running boxd keeps its port, so a
   * client stays right for as long as its box's record is there and that very process lives:
   * a connect then costs a file check and one procfs read instead of reading the record and
   * making a new client.
   */
  readonly #clients = new Map<string, KnownClient>();

  constructor(options: LocalBackendOptions) {
    this.#settings = settingsFrom(options);
  }

  async create(input: CreateBoxInput): Promise<CreatedBox> {
    const parsed = boxMetadataSchema.safeParse(input.metadata);
    if (!parsed.success) throw invalidInput("metadata", parsed.error.issues);
    const profile = executionProfileSchema.safeParse(input.profile);
    if (!profile.success) throw invalidInput("profile", profile.error.issues);
    const installationId = await this.#settings.installationId?.();
    const metadata: BoxMetadata = {
      ...parsed.data,
      ...(installationId === undefined ? {} : { installationId }),
    };
    const instanceId = instanceIdFor(metadata.allocationId);
    const running = await this.#guarded({ operation: "create", instanceId }, async (layout) => {
      let record = await readBoxRecord(layout);
      if (record === undefined) {
        record = await this.#newBox({ layout, metadata, profile: profile.data });
      } else {
        this.#checkSameAllocation(record, metadata, profile.data);
      }
      return this.#ensureRunning(layout, record);
    });
    // What the box runs with now (an adopted box restarted here may have been given more).
    return { instanceId, confinement: confinementOf(running) };
  }

  /**
   * What a box started now would run with: bubblewrap where it works, none where the operator
   * allows that; a BackendError (unavailable) where a box would not start at all. A failed probe
   * is tried again after a minute, so this turns to bubblewrap once bubblewrap is installed.
   */
  resolveIsolation(): Promise<ResolvedIsolation> {
    return this.#isolation();
  }

  async resume(instanceId: string): Promise<BoxConfinement> {
    const running = await this.#guarded({ operation: "resume", instanceId }, async (layout) =>
      this.#ensureRunning(layout, await this.#existing(layout)),
    );
    // A box restarted here may run with more isolation than it was created with.
    return confinementOf(running);
  }

  async terminate(instanceId: string): Promise<void> {
    this.#clients.delete(instanceId);
    await this.#guarded({ operation: "terminate", instanceId }, async (layout) => {
      if (!(await pathExists(layout.folder))) {
        // A terminate cut short after the folder went: its cgroup may be left.
        await (await this.#cgroups()).remove(instanceId);
        return;
      }
      // A folder without a record is a create cut short: there is nothing running to stop.
      const record = await readBoxRecord(layout);
      await this.#stop(layout, record?.boxd ?? null);
      if (record?.user)
        await releaseBoxUser({ dataDir: await this.#root(), instanceId, user: record.user });
      // Moved out first, so a crash mid-removal leaves trash rather than a half-deleted box.
      const trash = join(await this.#root(), "trash");
      await mkdir(trash, { recursive: true });
      const doomed = join(trash, `${instanceId}.${randomBytes(4).toString("hex")}`);
      await rename(layout.folder, doomed);
      await rm(doomed, { recursive: true, force: true });
      this.#settings.logger.info({ instanceId }, "box terminated");
    });
  }

  async suspend(instanceId: string): Promise<void> {
    this.#clients.delete(instanceId);
    await this.#guarded({ operation: "suspend", instanceId }, async (layout) => {
      const record = await this.#existing(layout);
      await this.#stop(layout, record.boxd);
      if (record.boxd === null) return;
      await writeBoxRecord(layout, { ...record, boxd: null });
      this.#settings.logger.info({ instanceId }, "box suspended");
    });
  }

  /** A local box serves once create or resume returns; this proves it, within one deadline. */
  ready(instanceId: string, options: ReadyOptions): Promise<BoxClient> {
    return waitUntilServing({
      instanceId,
      reach: () => this.connect(instanceId),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  }

  async connect(instanceId: string): Promise<BoxClient> {
    const known = this.#clients.get(instanceId);
    if (known !== undefined) {
      // A removed record is a box gone (not_found below), even while its boxd is still dying.
      if (existsSync(known.recordFile) && (await isRunning(known.boxd))) return known.client;
      this.#clients.delete(instanceId);
    }
    try {
      const layout = await this.#layout(instanceId);
      const record = await this.#existing(layout);
      if (record.boxd === null || !(await isRunning(record.boxd))) {
        throw new BackendError({
          code: "unavailable",
          message: `box ${instanceId} is not running (resume it first)`,
          instanceId,
        });
      }
      const client = createBoxClient({
        socketPath: record.boxd.socketPath,
        token: this.#token(instanceId),
      });
      this.#remember(instanceId, { boxd: record.boxd, recordFile: layout.recordFile, client });
      return client;
    } catch (error) {
      throw toBackendError(error, { operation: "connect", instanceId });
    }
  }

  #remember(instanceId: string, known: KnownClient): void {
    // Boxes stopped by other processes are only noticed on their next connect: the oldest
    // entries make room, so a long-lived server does not keep every box it ever reached.
    if (this.#clients.size >= MAX_KNOWN_CLIENTS) {
      const oldest = this.#clients.keys().next();
      if (oldest.done !== true) this.#clients.delete(oldest.value);
    }
    this.#clients.set(instanceId, known);
  }

  async inventory(): Promise<readonly BoxInfo[]> {
    try {
      const dataDir = await this.#root();
      const ours = await this.#settings.installationId?.();
      const boxes: BoxInfo[] = [];
      const instanceIds = await listInstanceIds(dataDir);
      for (const instanceId of instanceIds) {
        const info = await this.#describe(boxLayout({ dataDir, instanceId }));
        if (info === undefined) continue;
        // Another installation's box is not ours to list (nor to sweep); one recording no
        // installation predates the ids, and is this installation's.
        const owner = info.metadata.installationId;
        if (ours !== undefined && owner !== undefined && owner !== ours) continue;
        boxes.push(info);
      }
      await this.#sweepCgroups(new Set(instanceIds));
      return boxes.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    } catch (error) {
      throw toBackendError(error, { operation: "inventory" });
    }
  }

  async #describe(layout: BoxLayout): Promise<BoxInfo | undefined> {
    let record: BoxRecord | undefined;
    try {
      record = await readBoxRecord(layout);
    } catch (error) {
      // One unreadable record must not hide every other box.
      this.#settings.logger.error(
        { instanceId: layout.instanceId, err: error },
        "unreadable box record",
      );
      return undefined;
    }
    if (record === undefined) return undefined;
    return {
      instanceId: record.instanceId,
      metadata: record.metadata,
      createdAt: new Date(record.createdAt),
      isolation: record.isolation,
      network: record.network,
      limits: record.limits,
      state: await this.#state(layout, record),
    };
  }

  /**
   * Removes the cgroups of boxes whose folder is gone (a crash mid-terminate, a folder removed
   * by hand), killing what still runs in them: under the data folder's own cgroup parent,
   * nothing but this data folder's boxes is there. One that fails is logged and left for the
   * next sweep: it must not hide every box from inventory.
   */
  async #sweepCgroups(folders: ReadonlySet<string>): Promise<void> {
    const cgroups = await this.#cgroups();
    let listed: string[];
    try {
      listed = await cgroups.list();
    } catch (error) {
      this.#settings.logger.error({ err: error }, "box cgroups could not be listed for the sweep");
      return;
    }
    for (const instanceId of listed) {
      if (folders.has(instanceId)) continue;
      try {
        await this.#guarded({ operation: "sweep", instanceId }, async (layout) => {
          // Under the box's lock: a create may have made its folder since the listing.
          if (await pathExists(layout.folder)) return;
          await cgroups.remove(instanceId);
          this.#settings.logger.warn({ instanceId }, "removed the cgroup of a box with no folder");
        });
      } catch (error) {
        this.#settings.logger.error({ instanceId, err: error }, "a stale box cgroup stays");
      }
    }
  }

  async #state(layout: BoxLayout, record: BoxRecord): Promise<BoxInfo["state"]> {
    if (!(await pathExists(layout.workspace))) return "gone";
    return record.boxd !== null && (await isRunning(record.boxd)) ? "running" : "suspended";
  }

  /** Runs one change to a box under its lock, with errors normalized. */
  async #guarded<T>(
    target: { readonly operation: string; readonly instanceId: string },
    work: (layout: BoxLayout) => Promise<T>,
  ): Promise<T> {
    try {
      const layout = await this.#layout(target.instanceId);
      const lock = {
        path: join(await this.#root(), "locks", `${target.instanceId}.lock`),
        timeoutMs: this.#settings.startTimeoutMs + this.#settings.stopGraceMs + 10_000,
        instanceId: target.instanceId,
      };
      return await withBoxLock(lock, () => work(layout));
    } catch (error) {
      throw toBackendError(error, target);
    }
  }

  async #newBox(creation: {
    readonly layout: BoxLayout;
    readonly metadata: BoxMetadata;
    readonly profile: ExecutionProfile;
  }): Promise<BoxRecord> {
    const { layout, metadata, profile } = creation;
    const isolation = await this.#isolation();
    await this.#checkCapacity(layout.instanceId);
    await mkdir(layout.workspace, { recursive: true, mode: 0o700 });
    const record: BoxRecord = {
      format: 2,
      instanceId: layout.instanceId,
      metadata,
      profile,
      createdAt: new Date().toISOString(),
      isolation,
      // Decided at each start (a box made before egress was set up gets it once it is).
      network: isolation === "bubblewrap" ? "none" : "host",
      user: null,
      limits: noBoxLimits,
      boxd: null,
    };
    await writeBoxRecord(layout, record);
    this.#settings.logger.info(
      { instanceId: layout.instanceId, metadata, isolation },
      "box created",
    );
    return record;
  }

  /**
   * A second create of an allocation adopts its box — but never across workspaces, leases or
   * execution profiles. The epoch may differ (a successor spawner adopting it); the record keeps
   * the creator's. A box recorded before profiles were is adopted under any profile.
   */
  #checkSameAllocation(record: BoxRecord, metadata: BoxMetadata, profile: ExecutionProfile): void {
    if (
      record.profile !== null &&
      profileFingerprint(record.profile) !== profileFingerprint(profile)
    ) {
      throw new BackendError({
        code: "invalid",
        message: `allocation ${metadata.allocationId} already made box ${record.instanceId} with another execution profile (template ${record.profile.template}, image ${record.profile.image})`,
        instanceId: record.instanceId,
      });
    }
    const stored = record.metadata;
    if (
      stored.allocationId !== metadata.allocationId ||
      stored.workspaceId !== metadata.workspaceId ||
      stored.leaseId !== metadata.leaseId
    ) {
      throw new BackendError({
        code: "invalid",
        message: `allocation ${metadata.allocationId} already made box ${record.instanceId} for workspace ${stored.workspaceId}, lease ${stored.leaseId}`,
        instanceId: record.instanceId,
      });
    }
  }

  async #existing(layout: BoxLayout): Promise<BoxRecord> {
    const record = await readBoxRecord(layout);
    if (record === undefined) {
      throw new BackendError({
        code: "not_found",
        message: `no box ${layout.instanceId}`,
        instanceId: layout.instanceId,
      });
    }
    return record;
  }

  /**
   * Reuses a healthy boxd; otherwise (re)starts one on the box's folder and records it. Answers
   * the record the box runs under.
   */
  async #ensureRunning(layout: BoxLayout, record: BoxRecord): Promise<BoxRecord> {
    const { instanceId } = layout;
    if (!(await pathExists(layout.workspace))) {
      throw new BackendError({
        code: "not_found",
        message: `box ${instanceId} is gone: its workspace folder is missing`,
        instanceId,
      });
    }
    const token = this.#token(instanceId);
    if (record.boxd !== null && (await isRunning(record.boxd))) {
      if (await isHealthy({ socketPath: record.boxd.socketPath, instanceId, token })) return record;
      this.#settings.logger.warn(
        { instanceId, pid: record.boxd.pid },
        "boxd runs but fails healthz: restarting it",
      );
    }
    await this.#stop(layout, record.boxd);
    const isolation = await this.#isolationFor(record);
    const { network, gid } = await resolveNetwork({
      requested: this.#settings.network,
      isolated: isolation === "bubblewrap",
      logger: this.#settings.logger,
    });
    await this.#checkCapacity(instanceId);
    const user = await this.#userFor(layout, record, isolation);
    const cgroups = await this.#cgroups();
    const { diskBytes } = this.#settings.limits;
    const limits = recordedLimits(
      await cgroups.create(instanceId, this.#settings.limits),
      diskBytes,
    );
    let boxd: BoxdProcess;
    try {
      boxd = await startBoxd({
        layout,
        token,
        command: { entry: this.#settings.boxdEntry, logLevel: this.#settings.boxdLogLevel },
        isolation,
        bwrapPath: this.#settings.bwrapPath,
        network: { mode: network, ...(gid === undefined ? {} : { gid }) },
        user: user === null ? null : { ...user, processes: this.#settings.limits.processes },
        env: this.#settings.boxEnv,
        timeoutMs: this.#settings.startTimeoutMs,
        cgroupProcs: cgroups.procsFiles(instanceId),
        diskBytes,
      });
    } catch (error) {
      // No cgroup outlives a failed start; the next start makes it afresh.
      await cgroups.remove(instanceId).catch((cause: unknown) => {
        this.#settings.logger.error({ instanceId, err: cause }, "a failed start's cgroup stays");
      });
      throw error;
    }
    const started: BoxRecord = { ...record, isolation, network, user, limits, boxd };
    await writeBoxRecord(layout, started);
    this.#settings.logger.info(
      { instanceId, pid: boxd.pid, socket: boxd.socketPath, isolation, network, limits },
      "boxd started",
    );
    return started;
  }

  /**
   * The host user a box's commands run as, when Berth runs as root and the box under bubblewrap
   * (only root can switch users; an unisolated box runs as the control plane): boxUsers.ts.
   */
  async #userFor(
    layout: BoxLayout,
    record: BoxRecord,
    isolation: ResolvedIsolation,
  ): Promise<BoxUser | null> {
    if (isolation !== "bubblewrap" || process.getuid?.() !== 0) return null;
    return prepareBoxUser({
      dataDir: await this.#root(),
      layout,
      recorded: record.user,
      range: this.#settings.boxUids,
      logger: this.#settings.logger,
    });
  }

  /**
   * Stops the recorded boxd (if any), then whatever else still serves the box, then removes its
   * cgroup (killing anything left in it): a box has a cgroup only while it runs.
   */
  async #stop(layout: BoxLayout, boxd: BoxRecord["boxd"]): Promise<void> {
    if (boxd !== null) await stopBoxd({ boxd, graceMs: this.#settings.stopGraceMs });
    const strays = await killStrays(layout);
    if (strays.length > 0) {
      this.#settings.logger.warn(
        { instanceId: layout.instanceId, pids: strays },
        "killed boxd processes the box record did not name",
      );
    }
    await (await this.#cgroups()).remove(layout.instanceId);
  }

  /** This data folder's box cgroups, under Berth's parent (detected once per process). */
  async #cgroups(): Promise<BoxCgroups> {
    return detectCgroups({
      parent: cgroupParentFor(this.#settings.cgroupParent, await this.#root()),
      logger: this.#settings.logger,
    });
  }

  /** A box never runs with less isolation than it was created with. */
  async #isolationFor(record: BoxRecord): Promise<ResolvedIsolation> {
    const current = await this.#isolation();
    if (record.isolation === "bubblewrap" && current === "none") {
      throw new BackendError({
        code: "unavailable",
        message: `box ${record.instanceId} was created in bubblewrap, which is not available now: it will not run unisolated`,
        instanceId: record.instanceId,
      });
    }
    return current;
  }

  #isolation(): Promise<ResolvedIsolation> {
    const { isolation, ci, allowUnisolated, bwrapPath, logger } = this.#settings;
    return resolveIsolation({ requested: isolation, ci, allowUnisolated, bwrapPath, logger });
  }

  /** Counts the other running boxes (a cross-process race may overshoot by the racers). */
  async #checkCapacity(instanceId: string): Promise<void> {
    const dataDir = await this.#root();
    let running = 0;
    for (const other of await listInstanceIds(dataDir)) {
      if (other === instanceId) continue;
      const record = await readBoxRecord(boxLayout({ dataDir, instanceId: other })).catch(
        () => undefined,
      );
      if (record?.boxd && (await isRunning(record.boxd))) running += 1;
    }
    if (running >= this.#settings.maxBoxes) {
      throw new BackendError({
        code: "capacity",
        message: `${String(running)} boxes already run on this machine (maxBoxes ${String(this.#settings.maxBoxes)})`,
        instanceId,
      });
    }
  }

  async #layout(instanceId: string): Promise<BoxLayout> {
    // The id names a folder: anything but an id this backend could have made is refused.
    if (!isInstanceId(instanceId)) {
      throw new BackendError({
        code: "invalid",
        message: `not a local box instance id: ${JSON.stringify(instanceId)}`,
      });
    }
    return boxLayout({ dataDir: await this.#root(), instanceId });
  }

  /** The data folder's real path (bubblewrap binds by path), created on first use. */
  #root(): Promise<string> {
    this.#dataDir ??= (async () => {
      await mkdir(boxesFolder(this.#settings.dataDir), { recursive: true, mode: 0o700 });
      return realpath(this.#settings.dataDir);
    })().catch((error: unknown) => {
      // Not cached: the next call tries again (the folder may be creatable by then).
      this.#dataDir = undefined;
      throw error;
    });
    return this.#dataDir;
  }

  #token(instanceId: string): string {
    return deriveBoxToken({ secret: this.#settings.secret, instanceId });
  }
}

function invalidInput(
  what: string,
  issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[],
): BackendError {
  const listed = issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`);
  return new BackendError({
    code: "invalid",
    message: `create: invalid ${what}: ${listed.join("; ")}`,
  });
}
