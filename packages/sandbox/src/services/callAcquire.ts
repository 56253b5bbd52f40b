import type { StatementAdmission } from "../lease/leaseStore.ts";
import type { AcquireInput, CallAcquire, LeaseSystem } from "../lease/leaseSystem.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { Route } from "../routing/routeStep.ts";
import type { BoxCall } from "./boxHandle.ts";

/** What a call's acquire ends with: a machine to run on, or the group box's lease, warm. */
export type WarmLease =
  | Extract<CallAcquire, { kind: "routed" }>
  | {
      readonly kind: "warm";
      readonly lease: LeaseSnapshot;
      readonly pointer: Route | null;
      readonly admission: StatementAdmission;
    };

/**
 * One acquire of a call's holder: following the session's pointer (routed to a machine, it
 * takes nothing), or, for a `group` call, on the group box whatever the pointer says.
 */
export async function acquireForCall(
  leases: LeaseSystem,
  call: BoxCall,
  holder: AcquireInput,
): Promise<CallAcquire> {
  const write = call.operation.writes ? call.operation.name : null;
  if (call.route !== "group") return leases.acquireForCall(holder, write);
  const { acquired, pointer, admission } =
    write === null
      ? { ...(await leases.acquireWithPointer(holder)), admission: null }
      : await leases.acquireAndAdmit(holder, write);
  return { kind: "acquired", acquired, pointer, admission };
}
