import { setImmediate as nextTurn } from "node:timers/promises";
import { BoxError, type BoxClient } from "@berth/box-protocol";
import { RecoveryActions } from "../admin/recoveryActions.ts";
import type { ArchiveStoreStatus } from "../archives/archiveStore.ts";
import type { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import { isBlocked } from "../lease/blocking.ts";
import type { AcquireOutcome } from "../lease/errors.ts";
import { LeaseSystem } from "../lease/leaseSystem.ts";
import { ProcessHolders } from "../lease/processHolders.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { WarmingSystem } from "../lease/warmingSystem.ts";
import { backendDrainPort } from "../reaper/backendDrainPort.ts";
import { captureUnavailableDrainPort } from "../reaper/drainPort.ts";
import { RouteStep } from "../routing/routeStep.ts";
import type { BackendKind, BackendRegistry } from "../spawner/backendRegistry.ts";
import { BackendError } from "../spawner/backend.ts";
import { SpawnError } from "../spawner/spawnError.ts";
import type { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { groupLease, type BoxCall, type BoxHandle } from "./boxHandle.ts";
import { BoxServiceError } from "./boxServiceError.ts";
import { LeaseChangeWaits } from "./leaseChangeWaits.ts";
import type { LeaseWakeups } from "./leaseWakeups.ts";
import type { MachineClients } from "./machineBox.ts";
import { holdProcess } from "./processHold.ts";
import { acquireForCall, type WarmLease } from "./callAcquire.ts";
import { captureRefusedAnswer, captureUnavailableAnswer, noStoreAnswer } from "./captureAnswers.ts";
import { blockedAnswer, lostAnswer, spawnAnswer } from "./recoveryAnswers.ts";
import { isRouteMoved, READ_ROUTE_ATTEMPTS, runOnMachine } from "./sessionRoute.ts";
import { settleWithRetry } from "./settleWithRetry.ts";

export type { BoxCall, BoxHandle } from "./boxHandle.ts";

export interface BoxAccessOptions {
  readonly resources: LeaseResources;
  /** Each lease's box is reached through the backend the lease names. */
  readonly backends: BackendRegistry;
  readonly spawner: SpawnerSystem;
  /** Captures on demand (`capture`); without it, on-demand capture is unavailable. */
  readonly archiver?: WorkspaceArchiver;
  /**
   * Wakes callers waiting for a lease someone else is warming or draining (NOTIFY); without
   * it, or while it cannot notify, they re-read every `pollMs`.
   */
  readonly wakeups?: LeaseWakeups;
  /** How often a waiting caller re-reads a lease when nothing wakes it. */
  readonly pollMs?: number;
  /** How often a running call touches its holder (default: a third of the viewer TTL). */
  readonly touchEveryMs?: number;
  /** Clients of enrolled machines, for sessions swapped onto one; without it, none is reached. */
  readonly machines?: MachineClients;
}

/**
 * Runs calls on a session's live box (the seed's channel A): an exact `direct:<requestId>`
 * holder for the call's duration (touched every TTL/3 while it runs, released in `finally`,
 * behind the answer); a cold box is spawned or rematerialized by the caller that wins the
 * spawner role, and everyone else waits server-side for it, bounded by the warming timeout;
 * then the routing step, then the box. A box found gone is marked lost once and answered
 * `instance_lost` — or `blocked`, when the mark left nothing to restore; nothing is replayed.
 * Every error's `retryable` is what the next call will do: it is derived from the lease row the
 * failing transition returned, and a retryable answer is checked against the lease as it is.
 */
export class BoxAccess {
  readonly #resources: LeaseResources;
  readonly #leases: LeaseSystem;
  readonly #warming: WarmingSystem;
  readonly #route: RouteStep;
  readonly #processes: ProcessHolders;
  readonly #backends: BackendRegistry;
  readonly #spawner: SpawnerSystem;
  readonly #archiver: WorkspaceArchiver | undefined;
  #storeProbe: Promise<ArchiveStoreStatus> | undefined;
  readonly #touchEveryMs: number;
  readonly #releasing = new Set<Promise<void>>();
  readonly #recovery: RecoveryActions;
  readonly #waits: LeaseChangeWaits;
  readonly #machines: MachineClients | undefined;

  constructor(options: BoxAccessOptions) {
    this.#machines = options.machines;
    this.#resources = options.resources;
    this.#leases = new LeaseSystem(options.resources);
    this.#warming = new WarmingSystem(options.resources);
    this.#route = new RouteStep(options.resources);
    this.#processes = new ProcessHolders(options.resources);
    this.#backends = options.backends;
    this.#spawner = options.spawner;
    this.#archiver = options.archiver;
    this.#waits = new LeaseChangeWaits({
      leases: this.#leases,
      wakeups: options.wakeups,
      pollMs: options.pollMs ?? 100,
    });
    this.#touchEveryMs =
      options.touchEveryMs ?? Math.max(1_000, Math.floor(options.resources.config.viewerTtlMs / 3));
    // An admin's restore captures and stops a live box as the reaper does: one capture path.
    this.#recovery = new RecoveryActions({
      resources: options.resources,
      drainPort:
        options.archiver === undefined
          ? captureUnavailableDrainPort
          : backendDrainPort({ backends: options.backends, archiver: options.archiver }),
    });
  }

  /** The backend kinds this process serves: a session naming another is refused at create. */
  backendKinds(): readonly BackendKind[] {
    return this.#backends.kinds();
  }

  /**
   * The archive store's health, or null when this process captures nothing. Calls at once share
   * one probe: a burst of status requests costs the store one request.
   */
  archiveStore(): Promise<ArchiveStoreStatus | null> {
    if (this.#archiver === undefined) return Promise.resolve(null);
    this.#storeProbe ??= this.#archiver.storeHealth().finally(() => {
      this.#storeProbe = undefined;
    });
    return this.#storeProbe;
  }

  /** Refuses a backend this process cannot serve (BackendNotConfiguredError), writing nothing. */
  requireBackend(kind: BackendKind): void {
    this.#backends.requireConfigured(kind);
  }

  /**
   * Runs `body` where the session's pointer says (read for this very call, by the statement that
   * acquires its holder): on a machine, with no group holder and without waking the group box;
   * else on the group box. A read that meets a pointer moving under it runs again on the new
   * target (at most READ_ROUTE_ATTEMPTS times); a write never does: refused before it reached any target it answers `fenced` (retryable),
   * and once it ran its handle says where it landed.
   */
  async run<T>(call: BoxCall, body: (handle: BoxHandle) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#onTarget(call, body);
      } catch (error) {
        if (call.operation.writes || attempt >= READ_ROUTE_ATTEMPTS || !isRouteMoved(error))
          throw error;
      }
    }
  }

  async #onTarget<T>(call: BoxCall, body: (handle: BoxHandle) => Promise<T>): Promise<T> {
    const holder = { kind: "direct" as const, id: `direct:${call.requestId}` };
    // The pointer for this operation is read by the statement that acquires the holder: a round
    // trip saved. A pointer that moves meanwhile is still caught: a write's admission checks it.
    const warm = await this.#warmLease(call, holder.id);
    if (warm.kind === "routed") {
      const { pointer } = warm;
      return runOnMachine(
        { route: this.#route, machines: this.#machines },
        { call, pointer, machineId: pointer.activeSandboxId },
        body,
      );
    }
    let lease = warm.lease;
    const seen = lease;
    const route = warm.pointer ?? undefined;
    const admission = warm.admission ?? undefined;
    const stopTouching = this.#keepTouching(lease, holder.id);
    let settle: (() => Promise<void>) | null = null;
    try {
      return await this.#route.run(
        {
          lease,
          sessionId: call.sessionId,
          holder,
          operation: call.operation,
          route,
          admission,
          group: call.route === "group",
          settleBehind: (task) => {
            settle = task;
          },
        },
        // Connected inside the routing step: a write admitted with the holder is settled
        // (rejected) even when its box is not there to take it.
        async (pointer, generation) => {
          const box = await this.#connect(lease);
          const routedTo = { kind: "group" as const, id: lease.sandboxGroupId };
          const routeEpoch = pointer.activeEpoch;
          try {
            return await body({ box, lease, generation, routedTo, routeEpoch });
          } catch (error) {
            if (!isUnreachable(error)) throw error;
            lease = await this.#confirmLossOrReport(lease, error);
            throw error;
          }
        },
      );
    } catch (error) {
      throw await this.#checkedAgainstLease(error, seen);
    } finally {
      stopTouching();
      this.#finishBehind(lease, holder.id, settle);
    }
  }

  /**
   * Resolves once every write settled and holder released behind an answer has landed: for an
   * orderly shutdown, and for whoever must see the database as the answered calls left it.
   */
  async settled(): Promise<void> {
    await Promise.all(this.#releasing);
  }

  /**
   * Captures the session's workspace now (waking its box if cold) and publishes it, under the
   * call's holder so the box stays warm meanwhile. Answers the published revision; a capture
   * that keeps meeting new writes is refused (retryable), as one the box cannot give.
   */
  async capture(
    call: Omit<BoxCall, "operation">,
    actor: string,
  ): Promise<{ revision: string; generation: number; lease: LeaseSnapshot }> {
    const archiver = this.#archiver;
    // Writes this process answered are settled behind their answers: a capture asked for right
    // after one must not be refused for an admission about to settle.
    await this.settled();
    // The group box's workspace is what is archived: captured there whatever the pointer says.
    return this.run(
      { ...call, route: "group", operation: { name: "archives.capture", writes: false } },
      async (handle) => {
        const lease = groupLease(handle);
        if (archiver === undefined) throw noStoreAnswer(lease.epoch);
        const captured = await archiver.capture(lease, { actor });
        switch (captured.kind) {
          case "published":
            return captured;
          case "refused":
            throw captureRefusedAnswer(captured.reason, captured.lease?.epoch ?? lease.epoch);
          case "unavailable":
            throw captureUnavailableAnswer(captured.reason, lease.epoch);
          case "provider_missing":
            // Gone, not busy: its loss is marked, so the next call restores (or is blocked).
            throw await this.#markLost(lease, new Error("the box was gone when captured"));
        }
      },
    );
  }

  /** The lease systems over the same resources (the configured TTLs), for holder calls. */
  get leases(): LeaseSystem {
    return this.#leases;
  }

  /**
   * The admin recovery actions over this backend and archiver: a restore captures (with
   * progress, as any capture) and stops a live box through the same drain port as the reaper.
   */
  get recovery(): RecoveryActions {
    return this.#recovery;
  }

  /**
   * A turn or viewer arrives: its holder is acquired, and when it wins the spawner role the box
   * is created (or restored) before it returns — a lease is never left warming with no one
   * spawning it. Other roles are answered as they are.
   */
  async arrive(input: {
    workspaceId: string;
    sessionId: string;
    kind: "turn" | "viewer";
    holderId: string;
    expectedEpoch?: number;
  }): Promise<AcquireOutcome> {
    const acquired = await this.#leases.acquire({
      ...input,
      expectedEpoch: input.expectedEpoch ?? null,
    });
    if (acquired.role !== "spawner") return acquired;
    const lease = await this.#establish(acquired.lease, input.holderId, input.kind);
    return { role: "spawner", lease };
  }

  /**
   * Makes a process the call started in its box (an open terminal) a holder of the lease, under
   * the call's exact epoch and instance: the box stays warm while the process runs.
   */
  holdProcess(handle: BoxHandle, input: { sessionId: string; holderId: string }): Promise<void> {
    return holdProcess(this.#processes, handle, input);
  }

  /** The process ended: its hold goes (the last holder starts the idle grace). */
  async releaseProcess(lease: LeaseSnapshot | null, holderId: string): Promise<boolean> {
    // A machine's process (lease null) held nothing of the group box's lease.
    if (lease === null) return false;
    return this.#processes.close({ workspaceId: lease.workspaceId, leaseId: lease.id, holderId });
  }

  /**
   * Acquires the holder and returns the lease once warm (spawning it, or waiting for it), with
   * the session's pointer as the last acquire read it. A write attaching to a warm box is
   * admitted by that same statement (`admission`); after a spawn, the routing step admits it.
   */
  async #warmLease(call: BoxCall, holderId: string): Promise<WarmLease> {
    const deadline = Date.now() + this.#resources.config.warmingTimeoutMs;
    // The lease an earlier round took the holder on, while it waited for the box.
    let waited: LeaseSnapshot | null = null;
    for (;;) {
      const holder = {
        workspaceId: call.workspaceId,
        sessionId: call.sessionId,
        kind: "direct" as const,
        holderId,
      };
      const found = await acquireForCall(this.#leases, call, holder);
      if (found.kind === "routed") {
        // Swapped to a machine while this call waited for the group box: its holder goes.
        if (waited !== null) await this.#releaseQuietly(waited, holderId);
        return found;
      }
      const { acquired, pointer, admission } = found;
      switch (acquired.role) {
        case "spawner":
          return {
            kind: "warm",
            lease: await this.#establish(acquired.lease, holderId),
            pointer,
            admission: null,
          };
        case "attached":
        case "rearmed":
          if (acquired.lease.liveness === "warm" && acquired.lease.instanceId !== null)
            return { kind: "warm", lease: acquired.lease, pointer, admission };
          break;
        case "fenced":
          break;
        case "blocked":
          await this.#releaseQuietly(acquired.lease, holderId);
          throw blockedAnswer(acquired.lease, { detail: { reason: acquired.reason } });
      }
      // Someone else is warming or draining this box: wait for the lease to move, then re-acquire.
      if (Date.now() > deadline) {
        await this.#releaseQuietly(acquired.lease, holderId);
        // The lease is warming or draining, never blocked: the reaper settles a warming that
        // outlived its timeout (and finishes a drain), so a retry meets a settled lease.
        throw new BoxServiceError({
          code: "wait_timeout",
          message: "The box did not become ready within the warming timeout; retry.",
          retryable: true,
          epoch: acquired.lease.epoch,
        });
      }
      waited = acquired.lease;
      await this.#waits.until(acquired.lease, deadline);
    }
  }

  async #establish(
    spawned: LeaseSnapshot,
    holderId: string,
    kind: "direct" | "turn" | "viewer" = "direct",
  ): Promise<LeaseSnapshot> {
    try {
      return (await this.#spawner.establish(spawned)).lease;
    } catch (error) {
      await this.#releaseQuietly(spawned, holderId, kind);
      if (!(error instanceof SpawnError)) throw error;
      // The lease the failure left decides: blocked (a corrupt archive, a restore out of
      // retries), or retryable with the one restore retry it still has.
      throw spawnAnswer(error, spawned);
    }
  }

  /** A client of the lease's box; a box whose process died is resumed (its files are kept). */
  async #connect(lease: LeaseSnapshot): Promise<BoxClient> {
    const instanceId = lease.instanceId ?? "";
    const backend = this.#backends.backendFor(lease);
    try {
      return await backend.connect(instanceId);
    } catch (error) {
      if (!(error instanceof BackendError)) throw error;
      if (error.code === "not_found") throw await this.#markLost(lease, error);
      if (error.code !== "unavailable") throw error;
    }
    try {
      await backend.resume(instanceId, { epoch: lease.epoch });
      return await backend.connect(instanceId);
    } catch (error) {
      if (error instanceof BackendError && error.code === "not_found")
        throw await this.#markLost(lease, error);
      throw new BoxServiceError({
        code: "box_unavailable",
        message: "The box is not answering and could not be resumed; retry shortly.",
        retryable: true,
        epoch: lease.epoch,
        cause: error,
      });
    }
  }

  /** After a call found the box unreachable: gone (mark lost, once) or just not answering. */
  async #confirmLossOrReport(lease: LeaseSnapshot, cause: unknown): Promise<never> {
    try {
      await this.#backends.backendFor(lease).connect(lease.instanceId ?? "");
    } catch (error) {
      if (error instanceof BackendError && error.code === "not_found")
        throw await this.#markLost(lease, error);
    }
    throw new BoxServiceError({
      code: "box_unavailable",
      message:
        "The box stopped answering during the call; it may have run it. Nothing was replayed.",
      retryable: true,
      epoch: lease.epoch,
      cause,
    });
  }

  async #markLost(lease: LeaseSnapshot, cause: unknown): Promise<BoxServiceError> {
    // One caller's mark wins (a CAS on epoch and instance); every caller answers from the row
    // the mark left: restorable (instance_lost, retryable) or blocked (its archive was behind).
    const marked = await this.#warming.markInstanceLost({
      workspaceId: lease.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      instanceId: lease.instanceId ?? "",
      actor: "box-services",
    });
    return lostAnswer({ marked, seen: lease, cause });
  }

  /**
   * A retryable answer checked against the lease as it is now: a transition someone else made
   * meanwhile (a loss marked by another caller) may have left it blocked, and then the next call
   * is refused — so that is the answer. Anything else is returned as it was.
   */
  async #checkedAgainstLease(error: unknown, seen: LeaseSnapshot): Promise<unknown> {
    if (!(error instanceof BoxServiceError) || !error.retryable) return error;
    const now = await this.#leases
      .readByGroup({ workspaceId: seen.workspaceId, sandboxGroupId: seen.sandboxGroupId })
      .catch(() => null);
    if (now === null || !isBlocked(now)) return error;
    return blockedAnswer(now, { what: error.message, cause: error, detail: { was: error.code } });
  }

  /** Touches the call's holder every TTL/3, so a long call outlives the reaper's sweeps. */
  #keepTouching(lease: LeaseSnapshot, holderId: string): () => void {
    const timer = setInterval(() => {
      void this.#leases
        .touch({ workspaceId: lease.workspaceId, leaseId: lease.id, kind: "direct", holderId })
        .catch(() => undefined);
    }, this.#touchEveryMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Settles a finished call's write and releases its holder without holding back its answer:
   * they are the call's last round trips, and the caller has nothing to wait for in them. The
   * settle lands before the release, so the box never goes idle with the write unsettled. A
   * settle that fails is tried again (one that keeps failing leaves the admission open, as a
   * process that died mid-write does), and a release that fails leaves a holder its TTL ends.
   */
  #finishBehind(
    lease: LeaseSnapshot,
    holderId: string,
    settle: (() => Promise<void>) | null,
  ): void {
    // Started on the next turn of the event loop, so the answer is written out first.
    const finishing = nextTurn()
      .then(async () => {
        if (settle !== null) await settleWithRetry(settle);
        await this.#releaseQuietly(lease, holderId);
      })
      .finally(() => {
        this.#releasing.delete(finishing);
      });
    this.#releasing.add(finishing);
  }

  async #releaseQuietly(
    lease: LeaseSnapshot,
    holderId: string,
    kind: "direct" | "turn" | "viewer" = "direct",
  ): Promise<void> {
    await this.#leases
      .release({ workspaceId: lease.workspaceId, leaseId: lease.id, kind, holderId })
      .catch(() => undefined);
  }
}

/** A failure that says nothing came back from the box: the network, not an answer. */
function isUnreachable(error: unknown): boolean {
  return error instanceof BoxError && error.code === "unavailable" && error.status === undefined;
}
