/**
 * The SandboxWarmPool reconciler (§8.4, A6): keeps `spec.replicas` Sandboxes made from the
 * template, named `<pool>-xxxxx` by generateName, and reports replicas and readyReplicas.
 */
import type { Clock } from "../clock.ts";
import type { InProcessClient } from "../inProcessClient.ts";
import { nameHash } from "../nameHash.ts";
import type { KubeObject } from "../objects.ts";
import { jsonEqual, meta } from "../objects.ts";
import { blueprintHash, sandboxSpecFromTemplate } from "./blueprint.ts";
import {
  ANNOTATION,
  LABEL,
  condition,
  controllerOf,
  controllerRef,
  isControlledBy,
  isDeleting,
  record,
  spec,
  status,
  str,
} from "./fields.ts";

/** Members still not Ready this long after creation are replaced (A6). */
const UNREADY_LIMIT_MS = 5 * 60 * 1000;

/** At most this many members are created in one pass (A6). */
const MAX_CREATES_PER_PASS = 300;

export const isReadySandbox = (sandbox: KubeObject): boolean =>
  condition(sandbox, "Ready")?.status === "True";

export class WarmPoolController {
  constructor(private readonly $: { client: InProcessClient; clock: Clock }) {}

  reconcile(namespace: string, name: string, hooks: { requeueAt(at: number): void }): void {
    const { client } = this.$;
    const pool = client.get("pool", namespace, name);
    if (pool === undefined || isDeleting(pool)) return;
    const poolHash = nameHash(name);
    // Orphans that carry the pool label are adopted (A6).
    for (const orphan of client.list("sandbox", namespace)) {
      if (meta(orphan).labels?.[LABEL.warmPool] !== poolHash || controllerOf(orphan) !== undefined)
        continue;
      if (isDeleting(orphan)) continue;
      client.mergePatch(
        { kind: "sandbox", namespace, name: meta(orphan).name ?? "" },
        {
          metadata: { ownerReferences: [controllerRef(pool)] },
        },
      );
    }
    const templateName = str(record(spec(pool).sandboxTemplateRef).name) ?? "";
    const template = client.get("template", namespace, templateName);
    this.prune(pool, template, hooks);
    const members = client
      .list("sandbox", namespace)
      .filter((sandbox) => isControlledBy(sandbox, pool) && !isDeleting(sandbox));
    const desired = typeof spec(pool).replicas === "number" ? (spec(pool).replicas as number) : 1;
    let active = members;
    if (members.length < desired && template !== undefined) {
      const count = Math.min(desired - members.length, MAX_CREATES_PER_PASS);
      for (let i = 0; i < count; i++) {
        const labels = {
          [LABEL.warmPool]: poolHash,
          [LABEL.templateRefHash]: nameHash(templateName),
          [LABEL.launchType]: "warm",
          [LABEL.createdBy]: "controller",
          [LABEL.templateHash]: blueprintHash(template),
          [LABEL.podTemplateHash]: blueprintHash(template),
        };
        client.create("sandbox", namespace, {
          apiVersion: "agents.x-k8s.io/v1beta1",
          kind: "Sandbox",
          metadata: {
            generateName: `${name}-`,
            labels,
            annotations: { [ANNOTATION.templateRef]: templateName },
            ownerReferences: [controllerRef(pool)],
          },
          spec: sandboxSpecFromTemplate(template, labels, { safeToEvict: true }),
        });
      }
    } else if (members.length > desired) {
      // Surplus goes unready first, then newest first (A6).
      const order = [...members].sort((a, b) => {
        const readiness = Number(isReadySandbox(a)) - Number(isReadySandbox(b));
        if (readiness !== 0) return readiness;
        return (meta(b).creationTimestamp ?? "").localeCompare(meta(a).creationTimestamp ?? "");
      });
      const surplus = order.slice(0, members.length - desired);
      for (const sandbox of surplus)
        client.delete({ kind: "sandbox", namespace, name: meta(sandbox).name ?? "" });
      active = order.slice(members.length - desired);
    }
    const current = client
      .list("sandbox", namespace)
      .filter((sandbox) => isControlledBy(sandbox, pool) && !isDeleting(sandbox));
    active = current;
    const next = {
      replicas: active.length,
      readyReplicas: active.filter(isReadySandbox).length,
      selector: `${LABEL.warmPool}=${poolHash}`,
      observedGeneration: meta(pool).generation ?? 1,
    };
    const old = status(pool);
    if (!jsonEqual({ ...old, ...next }, old))
      client.mergePatch({ kind: "pool", namespace, name }, { status: next }, "status");
  }

  /**
   * Member pruning (A6): under `Recreate`, members made from an older blueprint go; any member
   * not Ready five minutes after its creation goes too, unless its pod is Unschedulable.
   */
  private prune(
    pool: KubeObject,
    template: KubeObject | undefined,
    hooks: { requeueAt(at: number): void },
  ): void {
    const { client } = this.$;
    const { namespace = "" } = meta(pool);
    const recreate = str(record(spec(pool).updateStrategy).type) === "Recreate";
    const current = template === undefined ? undefined : blueprintHash(template);
    const now = this.$.clock.now().getTime();
    for (const member of client.list("sandbox", namespace)) {
      if (!isControlledBy(member, pool) || isDeleting(member)) continue;
      const name = meta(member).name ?? "";
      if (
        recreate &&
        current !== undefined &&
        meta(member).labels?.[LABEL.templateHash] !== current
      ) {
        client.delete({ kind: "sandbox", namespace, name });
        continue;
      }
      if (isReadySandbox(member)) continue;
      const deadline = Date.parse(meta(member).creationTimestamp ?? "") + UNREADY_LIMIT_MS;
      if (now < deadline) {
        hooks.requeueAt(deadline);
        continue;
      }
      if (condition(member, "PodScheduled")?.reason === "Unschedulable") continue;
      client.delete({ kind: "sandbox", namespace, name });
    }
  }
}
