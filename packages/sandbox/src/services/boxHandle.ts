import type { BoxClient } from "@berth/box-protocol";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { RoutedTo } from "../routing/routedTo.ts";

/** One call on a session's box. */
export interface BoxCall {
  readonly workspaceId: string;
  readonly sessionId: string;
  /** Unique per request: the call's holder is `direct:<requestId>`. */
  readonly requestId: string;
  /** `writes`: a persistable change of the workspace, admitted before it reaches the box. */
  readonly operation: { readonly name: string; readonly writes: boolean };
  /**
   * `pointer` (default): wherever the session's pointer says, the group box or a machine.
   * `group`: the group box whatever the pointer says (a swap back wakes it first).
   */
  readonly route?: "pointer" | "group";
  /**
   * A stream (a terminal's output, a download): what it sent stands as sent, so once it ran, a
   * pointer that moved under it does not run it again elsewhere as a read's answer is (the
   * stream's consumer handles the move: `route_moved` for a terminal). One refused before it
   * reached any target still follows the pointer.
   */
  readonly stream?: boolean;
}

/** What the call's body receives: a client of the box, and the lease it runs under. */
export interface BoxHandle {
  readonly box: BoxClient;
  /** The group box's lease; null on a machine (it holds nothing of the group's lease). */
  readonly lease: LeaseSnapshot | null;
  /**
   * The workspace generation this call's write was admitted at; null for a read, and for a
   * write on a machine (it never advances the group lease's generations).
   */
  readonly generation: number | null;
  readonly routedTo: RoutedTo;
  /**
   * The session pointer's epoch this call was routed at: whatever lives on past the call (an
   * open terminal) belongs to this target until the pointer leaves that epoch.
   */
  readonly routeEpoch: number;
}

/** The lease of a call made with `route: "group"`, which always has one. */
export function groupLease(handle: BoxHandle): LeaseSnapshot {
  if (handle.lease === null) throw new Error("a group call ran without the group lease");
  return handle.lease;
}
