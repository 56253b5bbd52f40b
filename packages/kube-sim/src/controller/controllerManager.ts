/**
 * Runs the agent-sandbox controllers in-process (§8): follows the store's events, maps each to
 * the objects to reconcile, and runs them on a work queue plus timers on the injected clock, so
 * a test under a ManualClock can advance time and await `idle()`.
 */
import type { Clock } from "../clock.ts";
import type { InProcessClient, KindName } from "../inProcessClient.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { ObjectStore, StoreEvent } from "../store.ts";
import { VirtualTimers } from "../virtualTimers.ts";
import { WorkQueue } from "../workQueue.ts";
import { ClaimController } from "./claimController.ts";
import { controllerOf, record, spec, str } from "./fields.ts";
import { SandboxController } from "./sandboxController.ts";
import { TemplateController } from "./templateController.ts";
import { WarmPoolController } from "./warmPoolController.ts";

type Reconciled = Extract<KindName, "sandbox" | "claim" | "pool" | "template">;

const OWNER_KINDS: Record<string, Reconciled | undefined> = {
  Sandbox: "sandbox",
  SandboxClaim: "claim",
  SandboxWarmPool: "pool",
  SandboxTemplate: "template",
};

/** A failed reconcile is retried after this long on the clock, like a rate-limited requeue. */
const ERROR_REQUEUE_MS = 1000;

export class ControllerManager {
  private readonly queue: WorkQueue;
  private readonly timers: VirtualTimers;
  private readonly requeues = new Map<string, { at: number; cancel: () => void }>();
  private readonly unsubscribe: () => void;
  private readonly sandboxes: SandboxController;
  private readonly claims: ClaimController;
  private readonly pools: WarmPoolController;
  private readonly templates: TemplateController;

  constructor(private readonly $: { store: ObjectStore; client: InProcessClient; clock: Clock }) {
    this.queue = new WorkQueue((key) => {
      this.run(key);
    });
    this.timers = new VirtualTimers($.clock);
    this.sandboxes = new SandboxController($);
    this.claims = new ClaimController($);
    this.pools = new WarmPoolController($);
    this.templates = new TemplateController($);
    this.unsubscribe = $.store.subscribe((event) => {
      this.route(event);
    });
    // Objects that exist before the controller starts are reconciled once, as after a restart.
    for (const kind of ["template", "pool", "sandbox", "claim"] as const)
      for (const object of $.client.list(kind, undefined)) this.enqueue(kind, object);
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  get busy(): boolean {
    return this.queue.busy;
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
    this.timers.stop();
    this.requeues.clear();
  }

  private enqueue(kind: Reconciled, object: KubeObject): void {
    this.enqueueName(kind, meta(object).namespace, meta(object).name);
  }

  private enqueueName(
    kind: Reconciled,
    namespace: string | undefined,
    name: string | undefined,
  ): void {
    if (namespace === undefined || name === undefined) return;
    this.queue.add(`${kind}/${namespace}/${name}`);
  }

  private enqueueOwner(object: KubeObject | undefined): void {
    const owner = controllerOf(object);
    if (object === undefined || owner === undefined) return;
    const kind = OWNER_KINDS[owner.kind];
    if (kind !== undefined) this.enqueueName(kind, meta(object).namespace, owner.name);
  }

  /** Maps a store event to the objects whose reconcile reads it. */
  private route(event: StoreEvent): void {
    const { client } = this.$;
    const { object, previous } = event;
    const namespace = meta(object).namespace;
    switch (event.resource) {
      case client.resource("sandbox"):
        this.enqueue("sandbox", object);
        break;
      case client.resource("claim"):
        this.enqueue("claim", object);
        return;
      case client.resource("template"):
        this.enqueue("template", object);
        for (const pool of client.list("pool", namespace))
          if (str(record(spec(pool).sandboxTemplateRef).name) === meta(object).name)
            this.enqueue("pool", pool);
        return;
      case client.resource("pool"):
        this.enqueue("pool", object);
        for (const claim of client.list("claim", namespace))
          if (str(record(spec(claim).warmPoolRef).name) === meta(object).name)
            this.enqueue("claim", claim);
        return;
      case client.resource("pod"):
      case client.resource("service"):
      case client.resource("pvc"):
      case client.resource("networkPolicy"):
        break;
      default:
        return;
    }
    this.enqueueOwner(object);
    this.enqueueOwner(previous);
    if (event.resource === client.resource("sandbox")) {
      // A pool member that changes (readiness, adoption) may let a waiting claim bind.
      for (const claim of client.list("claim", namespace)) this.enqueue("claim", claim);
    }
  }

  private requeueAt(key: string, at: number): void {
    const existing = this.requeues.get(key);
    if (existing !== undefined && existing.at <= at) return;
    existing?.cancel();
    const cancel = this.timers.at(at, () => {
      this.requeues.delete(key);
      this.queue.add(key);
    });
    this.requeues.set(key, { at, cancel });
  }

  private run(key: string): void {
    const [kind = "", namespace = "", name = ""] = key.split("/");
    const hooks = {
      requeueAt: (at: number) => {
        this.requeueAt(key, at);
      },
    };
    try {
      switch (kind as Reconciled) {
        case "sandbox":
          this.sandboxes.reconcile(namespace, name, hooks);
          return;
        case "claim":
          this.claims.reconcile(namespace, name, hooks);
          return;
        case "pool":
          this.pools.reconcile(namespace, name, hooks);
          return;
        case "template":
          this.templates.reconcile(namespace, name);
          return;
      }
    } catch {
      // Conflicts and races with other writers: the next event or this retry re-reads the state.
      this.requeueAt(key, this.$.clock.now().getTime() + ERROR_REQUEUE_MS);
    }
  }
}
