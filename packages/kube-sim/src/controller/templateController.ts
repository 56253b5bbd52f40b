/**
 * The SandboxTemplate reconciler (§8.4, A7): labels the template with its own name hash. The
 * NetworkPolicy it would manage is not simulated: the simulator serves no NetworkPolicy kind.
 */
import type { InProcessClient } from "../inProcessClient.ts";
import { nameHash } from "../nameHash.ts";
import { meta } from "../objects.ts";
import { LABEL, isDeleting } from "./fields.ts";

export class TemplateController {
  constructor(private readonly $: { client: InProcessClient }) {}

  reconcile(namespace: string, name: string): void {
    const template = this.$.client.get("template", namespace, name);
    if (template === undefined || isDeleting(template)) return;
    const hash = nameHash(name);
    if (meta(template).labels?.[LABEL.templateRefHash] === hash) return;
    this.$.client.mergePatch(
      { kind: "template", namespace, name },
      {
        metadata: { labels: { [LABEL.templateRefHash]: hash } },
      },
    );
  }
}
