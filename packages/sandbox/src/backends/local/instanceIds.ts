import { createHash } from "node:crypto";

// Instance ids name folders, so they are derived from the allocation id (which may hold any
// character) in a form that is always a safe single path component.

/** Allocation ids that are already safe folder names are kept readable. */
const plainAllocationId = /^[A-Za-z0-9_-]{1,64}$/;

/** `box-<allocation>` or `box.<hash>`: the separator keeps the two forms from ever colliding. */
const instanceIdPattern = /^box(?:-[A-Za-z0-9_-]{1,64}|\.[0-9a-f]{32})$/;

/** The one instance id of an allocation: the same allocation always names the same box. */
export function instanceIdFor(allocationId: string): string {
  if (plainAllocationId.test(allocationId)) return `box-${allocationId}`;
  const digest = createHash("sha256").update(allocationId, "utf8").digest("hex");
  return `box.${digest.slice(0, 32)}`;
}

export function isInstanceId(value: string): boolean {
  return instanceIdPattern.test(value);
}
