/**
 * The SandboxClaim reconciler (§8.5, A5): adopts a warm pool member or cold-starts a Sandbox
 * named after the claim, mirrors the Sandbox's readiness into the claim's status, and expires
 * claims by their lifecycle.
 */
import { timestamp } from "../clock.ts";
import type { Clock } from "../clock.ts";
import type { InProcessClient } from "../inProcessClient.ts";
import { nameHash } from "../nameHash.ts";
import type { KubeObject } from "../objects.ts";
import { clone, jsonEqual, meta } from "../objects.ts";
import { blueprintHash, sandboxSpecFromTemplate } from "./blueprint.ts";
import type { Condition } from "./fields.ts";
import {
  ANNOTATION,
  LABEL,
  condition,
  conditions,
  controllerRef,
  isControlledBy,
  isDeleting,
  list,
  record,
  setCondition,
  spec,
  status,
  str,
} from "./fields.ts";
import { invalidPodMetadata } from "./podMetadataPolicy.ts";
import { isReadySandbox } from "./warmPoolController.ts";

/** Members without pod IPs are waited for this long after the claim was created (A5). */
const ADOPTION_GRACE_MS = 2000;

export interface ClaimHooks {
  requeueAt(at: number): void;
}

type Failure = { reason: string; message: string };

export class ClaimController {
  constructor(private readonly $: { client: InProcessClient; clock: Clock }) {}

  reconcile(namespace: string, name: string, hooks: ClaimHooks): void {
    const { client } = this.$;
    const claim = client.get("claim", namespace, name);
    if (claim === undefined || isDeleting(claim)) return;
    if (meta(claim).annotations?.[ANNOTATION.firstObservedAt] === undefined) {
      client.mergePatch(
        { kind: "claim", namespace, name },
        {
          metadata: { annotations: { [ANNOTATION.firstObservedAt]: timestamp(this.$.clock) } },
        },
      );
    }
    if (this.expireIfDue(claim, hooks)) return;
    let sandbox = this.boundSandbox(claim);
    let failure: Failure | undefined;
    if (sandbox === undefined) {
      const outcome = this.obtainSandbox(claim, hooks);
      if (outcome.kind === "failed") failure = outcome.failure;
      if (outcome.kind === "bound") sandbox = outcome.sandbox;
    }
    const fresh = client.get("claim", namespace, name);
    if (fresh !== undefined) this.writeStatus(fresh, sandbox, failure);
  }

  private boundSandbox(claim: KubeObject): KubeObject | undefined {
    const { namespace = "" } = meta(claim);
    const named = meta(claim).annotations?.[ANNOTATION.sandboxName] ?? meta(claim).name ?? "";
    const sandbox = this.$.client.get("sandbox", namespace, named);
    return sandbox !== undefined && isControlledBy(sandbox, claim) ? sandbox : undefined;
  }

  private obtainSandbox(
    claim: KubeObject,
    hooks: ClaimHooks,
  ):
    | { kind: "bound"; sandbox: KubeObject }
    | { kind: "failed"; failure: Failure }
    | { kind: "waiting" } {
    const { client } = this.$;
    const { namespace = "" } = meta(claim);
    const poolName = str(record(spec(claim).warmPoolRef).name) ?? "";
    const pool = client.get("pool", namespace, poolName);
    if (pool === undefined)
      return {
        kind: "failed",
        failure: { reason: "WarmPoolNotFound", message: `SandboxWarmPool "${poolName}" not found` },
      };
    const templateName = str(record(spec(pool).sandboxTemplateRef).name) ?? "";
    const template = client.get("template", namespace, templateName);
    if (template === undefined)
      return {
        kind: "failed",
        failure: {
          reason: "TemplateNotFound",
          message: `SandboxTemplate "${templateName}" not found`,
        },
      };
    const extra = record(spec(claim).additionalPodMetadata);
    const badMetadata = invalidPodMetadata({
      labels: record(extra.labels),
      annotations: record(extra.annotations),
    });
    if (badMetadata !== undefined)
      return { kind: "failed", failure: { reason: "InvalidMetadata", message: badMetadata } };
    const env = list(spec(claim).env);
    const claimVcts = list(spec(claim).volumeClaimTemplates);
    const envPolicy = str(spec(template).envVarsInjectionPolicy) ?? "Disallowed";
    if (env.length > 0 && envPolicy === "Disallowed")
      return {
        kind: "failed",
        failure: {
          reason: "EnvVarsInjectionRejected",
          message: "the template does not allow env var injection",
        },
      };
    const vctPolicy = str(spec(template).volumeClaimTemplatesPolicy) ?? "Disallowed";
    if (claimVcts.length > 0 && vctPolicy === "Disallowed")
      return {
        kind: "failed",
        failure: {
          reason: "VolumeClaimTemplatesError",
          message: "the template does not allow volume claim templates",
        },
      };
    if (env.length === 0 && claimVcts.length === 0) {
      const recreate = str(record(spec(pool).updateStrategy).type) === "Recreate";
      const current = blueprintHash(template);
      const members = client
        .list("sandbox", namespace)
        .filter(
          (sandbox) =>
            isControlledBy(sandbox, pool) &&
            !isDeleting(sandbox) &&
            meta(sandbox).labels?.[LABEL.warmPool] !== undefined &&
            meta(sandbox).labels?.[LABEL.templateRefHash] !== undefined &&
            // Under Recreate, a member of an older blueprint is not handed out (A5).
            (!recreate || meta(sandbox).labels?.[LABEL.templateHash] === current),
        )
        .sort((a, b) =>
          (meta(a).creationTimestamp ?? "").localeCompare(meta(b).creationTimestamp ?? ""),
        );
      const withIps = members.filter((sandbox) => {
        const ips = status(sandbox).podIPs;
        return Array.isArray(ips) && ips.length > 0;
      });
      const candidate = withIps.find(isReadySandbox) ?? withIps[0];
      if (candidate !== undefined)
        return { kind: "bound", sandbox: this.adopt(claim, candidate, template) };
      const deadline = Date.parse(meta(claim).creationTimestamp ?? "") + ADOPTION_GRACE_MS;
      if (members.length > 0 && this.$.clock.now().getTime() < deadline) {
        hooks.requeueAt(deadline);
        return { kind: "waiting" };
      }
    }
    return {
      kind: "bound",
      sandbox: this.coldStart(claim, template, { env, claimVcts, envPolicy, vctPolicy }),
    };
  }

  private podMetadata(claim: KubeObject, template: KubeObject): KubeObject {
    const templateMeta = record(record(spec(template).podTemplate).metadata);
    const extra = record(spec(claim).additionalPodMetadata);
    return {
      labels: {
        ...record(templateMeta.labels),
        ...record(extra.labels),
        [LABEL.claimUid]: meta(claim).uid ?? "",
        [LABEL.templateRefHash]: nameHash(meta(template).name ?? ""),
        [LABEL.createdBy]: "controller",
      },
      annotations: { ...record(templateMeta.annotations), ...record(extra.annotations) },
    };
  }

  /** Warm start (A5): annotate the claim, then re-own and relabel the member under a lock. */
  private adopt(claim: KubeObject, sandbox: KubeObject, template: KubeObject): KubeObject {
    const { client } = this.$;
    const { namespace = "" } = meta(claim);
    const sandboxName = meta(sandbox).name ?? "";
    const annotated = clone(claim);
    meta(annotated).annotations = {
      ...meta(annotated).annotations,
      [ANNOTATION.sandboxName]: sandboxName,
    };
    client.update("claim", namespace, annotated);
    const podMeta = this.podMetadata(claim, template);
    const annotations = record(podMeta.annotations);
    Reflect.deleteProperty(annotations, ANNOTATION.safeToEvict);
    return client.mergePatch(
      { kind: "sandbox", namespace, name: sandboxName },
      {
        metadata: {
          resourceVersion: meta(sandbox).resourceVersion,
          labels: {
            [LABEL.warmPool]: null,
            [LABEL.templateHash]: null,
            [LABEL.podTemplateHash]: null,
            [LABEL.launchType]: "warm",
            [LABEL.claimUid]: meta(claim).uid ?? "",
          },
          annotations: { [ANNOTATION.podName]: sandboxName },
          ownerReferences: [controllerRef(claim)],
        },
        spec: {
          podTemplate: {
            metadata: {
              labels: podMeta.labels,
              annotations: Object.keys(annotations).length > 0 ? annotations : null,
            },
          },
        },
      },
    );
  }

  /** Cold start (A5): a Sandbox named after the claim, from the template's blueprint. */
  private coldStart(
    claim: KubeObject,
    template: KubeObject,
    inputs: { env: KubeObject[]; claimVcts: KubeObject[]; envPolicy: string; vctPolicy: string },
  ): KubeObject {
    const { client } = this.$;
    const { namespace = "", name = "" } = meta(claim);
    const existing = client.get("sandbox", namespace, name);
    if (existing !== undefined) return existing;
    const templateName = meta(template).name ?? "";
    const podMeta = this.podMetadata(claim, template);
    const sandboxSpec = sandboxSpecFromTemplate(
      template,
      record(podMeta.labels) as Record<string, string>,
      {
        safeToEvict: false,
      },
    );
    const podSpec = record(record(sandboxSpec.podTemplate).spec);
    const containers = list(podSpec.containers);
    for (const variable of inputs.env) {
      const target = containers.find((c) => c.name === variable.containerName) ?? containers[0];
      if (target === undefined) continue;
      const current = list(target.env);
      const entry = { name: str(variable.name) ?? "", value: str(variable.value) ?? "" };
      const clash = current.findIndex((e) => e.name === entry.name);
      if (clash >= 0 && inputs.envPolicy === "Overrides") current[clash] = entry;
      else if (clash < 0) current.push(entry);
      target.env = current;
    }
    if (inputs.claimVcts.length > 0) {
      const byName = new Map<string, KubeObject>();
      for (const vct of list(sandboxSpec.volumeClaimTemplates))
        byName.set(str(record(vct.metadata).name) ?? "", vct);
      for (const vct of inputs.claimVcts) {
        const key = str(record(vct.metadata).name) ?? "";
        if (!byName.has(key) || inputs.vctPolicy === "Overrides") byName.set(key, clone(vct));
      }
      sandboxSpec.volumeClaimTemplates = [...byName.values()];
    }
    return client.create("sandbox", namespace, {
      apiVersion: "agents.x-k8s.io/v1beta1",
      kind: "Sandbox",
      metadata: {
        name,
        labels: {
          [LABEL.claimUid]: meta(claim).uid ?? "",
          [LABEL.launchType]: "cold",
          [LABEL.templateRefHash]: nameHash(templateName),
          [LABEL.createdBy]: "controller",
        },
        annotations: { [ANNOTATION.templateRef]: templateName },
        ownerReferences: [controllerRef(claim)],
      },
      spec: sandboxSpec,
    });
  }

  /** Returns true when the claim expired and nothing else is to be done (A9). */
  private expireIfDue(claim: KubeObject, hooks: ClaimHooks): boolean {
    const { client } = this.$;
    const { namespace = "", name = "" } = meta(claim);
    const lifecycle = record(spec(claim).lifecycle);
    const now = this.$.clock.now().getTime();
    const candidates: number[] = [];
    const shutdown = str(lifecycle.shutdownTime);
    if (shutdown !== undefined) candidates.push(Date.parse(shutdown));
    const finished = condition(claim, "Finished");
    if (typeof lifecycle.ttlSecondsAfterFinished === "number" && finished?.status === "True")
      candidates.push(
        Date.parse(finished.lastTransitionTime ?? "") + lifecycle.ttlSecondsAfterFinished * 1000,
      );
    if (candidates.length === 0) return false;
    const at = Math.min(...candidates);
    if (now < at) {
      hooks.requeueAt(at);
      return false;
    }
    const policy = str(lifecycle.shutdownPolicy) ?? "Retain";
    switch (policy) {
      case "Delete":
        client.delete({ kind: "claim", namespace, name }, { propagationPolicy: "Background" });
        return true;
      case "DeleteForeground":
        client.delete({ kind: "claim", namespace, name }, { propagationPolicy: "Foreground" });
        return true;
      default: {
        const sandbox = this.boundSandbox(claim);
        if (sandbox !== undefined && !isDeleting(sandbox))
          client.delete({ kind: "sandbox", namespace, name: meta(sandbox).name ?? "" });
        this.writeStatus(claim, undefined, {
          reason: "ClaimExpired",
          message: "Claim expired. Sandbox cleanup initiated.",
        });
        return true;
      }
    }
  }

  private writeStatus(
    claim: KubeObject,
    sandbox: KubeObject | undefined,
    failure: Failure | undefined,
  ): void {
    const { namespace = "", name = "" } = meta(claim);
    const generation = meta(claim).generation ?? 1;
    const now = timestamp(this.$.clock);
    let next: Condition[] = conditions(claim);
    let ready: Condition;
    if (failure !== undefined) {
      ready = { type: "Ready", status: "False", ...failure, observedGeneration: generation };
      next = setCondition(next, ready, now);
    } else if (sandbox === undefined) {
      next = setCondition(
        next,
        {
          type: "Ready",
          status: "False",
          reason: "SandboxMissing",
          message: "Sandbox does not exist",
          observedGeneration: generation,
        },
        now,
      );
    } else {
      const mirrored = condition(sandbox, "Ready");
      // The Sandbox's Ready is copied verbatim, lastTransitionTime included (A5).
      if (mirrored === undefined)
        next = setCondition(
          next,
          {
            type: "Ready",
            status: "False",
            reason: "SandboxNotReady",
            message: "Sandbox is not ready",
            observedGeneration: generation,
          },
          now,
        );
      else
        next = [
          ...next.filter((c) => c.type !== "Ready"),
          { ...mirrored, observedGeneration: generation },
        ];
      const finished = condition(sandbox, "Finished");
      if (finished !== undefined)
        next = [
          ...next.filter((c) => c.type !== "Finished"),
          { ...finished, observedGeneration: generation },
        ];
    }
    const patch: KubeObject = { conditions: next };
    if (sandbox !== undefined) {
      const podIPs = status(sandbox).podIPs;
      patch.sandbox = {
        name: meta(sandbox).name,
        ...(Array.isArray(podIPs) && podIPs.length > 0 ? { podIPs } : {}),
      };
    }
    const old = status(claim);
    if (!jsonEqual({ ...old, ...patch }, old))
      this.$.client.mergePatch(
        { kind: "claim", namespace, name },
        { metadata: { resourceVersion: meta(claim).resourceVersion }, status: patch },
        "status",
      );
    const isReady = next.find((c) => c.type === "Ready")?.status === "True";
    if (isReady && meta(claim).annotations?.[ANNOTATION.firstReadyAt] === undefined) {
      this.$.client.mergePatch(
        { kind: "claim", namespace, name },
        {
          metadata: { annotations: { [ANNOTATION.firstReadyAt]: now } },
        },
      );
    }
  }
}
