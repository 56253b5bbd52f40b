import type { DbClientOrTx } from "@berth/db";
import { AdmissionSystem, type AdmitWriteOutcome } from "../lease/admissionSystem.ts";
import { LeaseError } from "../lease/errors.ts";
import type { SessionPointer } from "../lease/leaseStore.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { BoxServiceError } from "../services/boxServiceError.ts";

/** The `fenced` reason of a call that met the session's pointer moving (hot-swap). */
export const ROUTE_MOVED = "route_moved";

/** Where a session's operations go: its group box (null) or an enrolled machine, at an epoch. */
export type Route = SessionPointer;

/** The holder a call runs under, which a write admission checks is still there. */
export interface CallHolder {
  readonly kind: "direct" | "turn" | "process";
  readonly id: string;
}

/** Takes a settle the caller runs behind its answer; it must run, and before the holder goes. */
export type SettleBehind = (settle: () => Promise<void>) => void;

/**
 * The routing step every box call goes through. It reads the session's pointer for this very
 * operation (hot-swap may move it between two calls), and for a persistable write admits it
 * before the box is reached — the admission checks epoch, instance, holder, route target and
 * activeEpoch at once — and settles it after, whatever happened. Reads advance nothing.
 */
export class RouteStep {
  readonly #db: DbClientOrTx;
  readonly #admissions: AdmissionSystem;

  constructor(resources: LeaseResources) {
    this.#db = resources.db;
    this.#admissions = new AdmissionSystem(resources);
  }

  async run<T>(
    input: {
      readonly lease: LeaseSnapshot;
      readonly sessionId: string;
      readonly holder: CallHolder;
      readonly operation: { readonly name: string; readonly writes: boolean };
      /** The pointer as read for this operation, if the caller read it already. */
      readonly route?: Route;
      /** The group box whatever the pointer says (a swap back waking it): no route check. */
      readonly group?: boolean;
      /**
       * Where the settle goes when the caller answers first: an admission settled a moment
       * after the answer only makes a capture in between retry. Without it, the settle is
       * awaited here.
       */
      readonly settleBehind?: SettleBehind;
      /**
       * The write's admission if the statement that acquired the holder made it already (one
       * round trip saved), under this same lease, holder and route.
       */
      readonly admission?: AdmitWriteOutcome;
    },
    /** `generation`: the workspace generation a write was admitted at (null for a read). */
    call: (route: Route, generation: number | null) => Promise<T>,
  ): Promise<T> {
    const route = input.route ?? (await this.read(input.lease.workspaceId, input.sessionId));
    // The pointer moved to a machine since the caller read it: nothing reached any target.
    if (route.activeSandboxId !== null && input.group !== true)
      throw new BoxServiceError({
        code: "fenced",
        message: "The session's pointer moved to an enrolled machine before this call ran; retry.",
        retryable: true,
        epoch: input.lease.epoch,
        detail: { reason: ROUTE_MOVED },
      });
    if (!input.operation.writes) return call(route, null);
    const instanceId = input.lease.instanceId;
    if (instanceId === null) throw fenced(input.lease, "the box has no instance");
    const admission =
      input.admission ??
      (await this.#admissions.admit({
        workspaceId: input.lease.workspaceId,
        leaseId: input.lease.id,
        sessionId: input.sessionId,
        expectedEpoch: input.lease.epoch,
        instanceId,
        holderKind: input.holder.kind,
        holderId: input.holder.id,
        routeTargetId: route.activeSandboxId,
        routeEpoch: route.activeEpoch,
        operation: input.operation.name,
      }));
    if (!admission.admitted) {
      // A session deleted meanwhile is what the next call's acquire answers too; any other
      // refusal means the box or route moved on, and the next call meets the new one.
      if (admission.reason === "session_not_found") throw sessionGone(input.sessionId);
      throw fenced(input.lease, admission.reason);
    }
    let outcome: "resolved" | "rejected" = "rejected";
    const settle = async () => {
      await this.#admissions.settle({
        workspaceId: input.lease.workspaceId,
        admissionId: admission.admissionId,
        outcome,
      });
    };
    try {
      const result = await call(route, admission.generation);
      outcome = "resolved";
      return result;
    } finally {
      // A failed write settles too: an unsettled admission would block every archive after it.
      if (input.settleBehind === undefined) await settle();
      else input.settleBehind(settle);
    }
  }

  /** The session's pointer now: where its next operation goes. */
  async read(workspaceId: string, sessionId: string): Promise<Route> {
    const session = await this.#db.session.findFirst({
      where: { id: sessionId, workspaceId },
      select: { activeSandboxId: true, activeEpoch: true },
    });
    if (session === null) throw sessionGone(sessionId);
    return session;
  }
}

function sessionGone(sessionId: string): LeaseError {
  return new LeaseError({
    code: "session_not_found",
    message: `Session ${sessionId} does not exist in this workspace.`,
    details: { sessionId },
  });
}

function fenced(lease: LeaseSnapshot, reason: string): BoxServiceError {
  return new BoxServiceError({
    code: "fenced",
    message: `The box moved on before this call reached it (${reason}); retry.`,
    retryable: true,
    epoch: lease.epoch,
    detail: { reason },
  });
}
