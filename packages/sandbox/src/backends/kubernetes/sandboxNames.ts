/**
 * The name of a box's Sandbox, and every name the agent-sandbox controller derives from it: the
 * pod (named after the Sandbox), the headless Service (`spec.service: true`, same name), and one
 * PVC per volume claim template, `<template name>-<sandbox name>`. Each must be a DNS-1123 label
 * of at most 63 characters (the Service a DNS-1035 label: it starts with a letter), or the
 * controller fails to make it long after the POST succeeded — so they are all checked before it.
 */
import { createHash } from "node:crypto";

export const SANDBOX_NAME_PREFIX = "berth-";

/** Hex digits kept of each id: 48 bits, so a collision is rare, and refused when it happens. */
export const SHORT_ID_LENGTH = 12;

/** `berth-<12>-<12>`: every Sandbox Berth names is this long. */
export const SANDBOX_NAME_LENGTH = SANDBOX_NAME_PREFIX.length + 2 * SHORT_ID_LENGTH + 1;

/** Kubernetes' limit for a DNS-1123 label (RFC 1123). */
export const MAX_LABEL_LENGTH = 63;

/** The longest volume claim template name whose PVC name still fits: 63 − 1 − 31 = 31. */
export const MAX_VOLUME_CLAIM_TEMPLATE_NAME_LENGTH = MAX_LABEL_LENGTH - 1 - SANDBOX_NAME_LENGTH;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** A name that cannot be used: which one, and why. Nothing was sent. */
export class SandboxNameError extends Error {
  override readonly name = "SandboxNameError";
  constructor(
    /** What the name is for: `sandbox`, `pod`, `service`, `pvc`, `volume claim template`, `id`. */
    readonly what: string,
    readonly value: string,
    readonly reason: string,
  ) {
    super(`cannot name a ${what} ${JSON.stringify(value)}: ${reason}`);
  }
}

export function isDns1123Label(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && DNS1123_LABEL.test(value);
}

/**
 * The short form of an id: the first 12 hex digits of its SHA-256. Hashing (rather than cutting
 * the id) takes any id — a UUID, mixed case, 200 characters — to the same alphabet and length;
 * the full ids stay readable in the Sandbox's labels and annotations.
 */
export function shortId(id: string): string {
  if (id === "") throw new SandboxNameError("id", id, "an id must not be empty");
  return createHash("sha256").update(id, "utf8").digest("hex").slice(0, SHORT_ID_LENGTH);
}

/**
 * `berth-<group>-<allocation>` from the short forms of the two ids. Two allocations of one group
 * share the group part, so `kubectl get sandboxes | grep berth-<group>` lists a group's boxes.
 */
export function sandboxNameFor(ids: {
  readonly sandboxGroupId: string;
  readonly allocationId: string;
}): string {
  return `${SANDBOX_NAME_PREFIX}${shortId(ids.sandboxGroupId)}-${shortId(ids.allocationId)}`;
}

/** What the controller will name after a Sandbox. */
export interface DerivedNames {
  readonly sandbox: string;
  readonly pod: string;
  readonly service: string;
  /** One per volume claim template, in the template's order. */
  readonly persistentVolumeClaims: readonly string[];
}

/**
 * Every name the controller derives from `sandboxName`, each checked.
 *
 * @param volumeClaimTemplateNames `spec.volumeClaimTemplates[].metadata.name`, in order
 * @throws SandboxNameError naming the first name that would not be valid
 */
export function derivedNames(
  sandboxName: string,
  volumeClaimTemplateNames: readonly string[],
): DerivedNames {
  check("sandbox", sandboxName, DNS1123_LABEL);
  for (const template of volumeClaimTemplateNames)
    check("volume claim template", template, DNS1123_LABEL);
  const names: DerivedNames = {
    sandbox: sandboxName,
    pod: sandboxName,
    service: sandboxName,
    persistentVolumeClaims: volumeClaimTemplateNames.map(
      (template) => `${template}-${sandboxName}`,
    ),
  };
  check("pod", names.pod, DNS1123_LABEL);
  check("service", names.service, DNS1035_LABEL);
  for (const claim of names.persistentVolumeClaims) check("pvc", claim, DNS1123_LABEL);
  return names;
}

function check(what: string, value: string, pattern: RegExp): void {
  if (value.length > MAX_LABEL_LENGTH) {
    throw new SandboxNameError(
      what,
      value,
      `${String(value.length)} characters, more than the ${String(MAX_LABEL_LENGTH)} a DNS label may have` +
        (what === "pvc" || what === "volume claim template"
          ? ` (volume claim template names may have at most ${String(MAX_VOLUME_CLAIM_TEMPLATE_NAME_LENGTH)})`
          : ""),
    );
  }
  if (!pattern.test(value)) {
    throw new SandboxNameError(
      what,
      value,
      pattern === DNS1035_LABEL
        ? "not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter)"
        : "not a DNS-1123 label (lower-case letters, digits and '-', starting and ending alphanumeric)",
    );
  }
}
