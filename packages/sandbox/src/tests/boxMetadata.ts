import { randomBytes } from "node:crypto";
import type { BoxMetadata } from "../spawner/backend.ts";

/** Metadata for a test box named `name`: its own allocation each time, per test file's nonce. */
export function testBoxMetadata(name: string, nonce = randomBytes(3).toString("hex")): BoxMetadata {
  return {
    workspaceId: `ws-${name}`,
    leaseId: `lease-${name}`,
    epoch: 1,
    allocationId: `alloc-${name}-${nonce}`,
  };
}
