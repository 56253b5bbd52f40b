import { preparedOnce, Prisma, queryRows, type DbClientOrTx } from "@berth/db";
import { admissionOutcome, type AdmitWriteOutcome } from "./admissionSystem.ts";
import { parseLeaseRow, type LeaseSnapshot } from "./snapshot.ts";

/** One row of any lease function: what happened, why, and the lease after it. */
export interface TransitionRow {
  readonly outcome: string;
  readonly reason: string | null;
  readonly lease: LeaseSnapshot | null;
}

interface RawTransitionRow {
  outcome: string;
  reason: string | null;
  lease: unknown;
}

/** A value bound to a lease function argument. */
export type LeaseArg = string | number | Date | null;

/** What a statement around a lease function reads: its row, or its row joined with more. */
interface StatementShape {
  readonly head: string;
  readonly tail: string;
}

const FUNCTION_ROW: StatementShape = { head: "SELECT outcome, reason, lease FROM ", tail: "" };

// berth_lease_acquire's first two arguments ($1, $2) are the workspace and the session.
const WITH_POINTER: StatementShape = {
  head: "SELECT f.outcome, f.reason, f.lease, s.active_sandbox_id, s.active_epoch FROM ",
  tail: " f LEFT JOIN sessions s ON s.id = $2::uuid AND s.workspace_id = $1::uuid",
};

/** Statement text per call site: a tag's strings array is one object for the life of the process. */
const statements = new WeakMap<TemplateStringsArray, string>();

function statementFor(strings: TemplateStringsArray, shape: StatementShape): string {
  let text = statements.get(strings);
  if (text === undefined) {
    const call = strings.reduce((sql, part, i) => `${sql}$${String(i)}${part}`);
    text = preparedOnce(shape.head + call + shape.tail);
    statements.set(strings, text);
  }
  return text;
}

/**
 * A tag for the hot lease calls (acquire, heartbeat, release):
 * `leaseCall(db)\`berth_lease_x(${id}::uuid, …)\`` answers the function's single row. Like
 * Prisma.sql, every value is a bound parameter; unlike it, the statement text is built once per
 * call site instead of composing a Prisma.Sql on every call, and so it can be prepared once per
 * connection.
 */
export function leaseCall(db: DbClientOrTx) {
  return async (strings: TemplateStringsArray, ...values: LeaseArg[]): Promise<TransitionRow> => {
    const rows = await queryRows<RawTransitionRow>(db, statementFor(strings, FUNCTION_ROW), values);
    return singleRow(rows.map(transitionRow));
  };
}

/** Where a session's operations go: its group box (null) or an enrolled machine, at an epoch. */
export interface SessionPointer {
  readonly activeSandboxId: string | null;
  readonly activeEpoch: number;
}

/** A pointer at an enrolled machine. */
export type MachinePointer = SessionPointer & { readonly activeSandboxId: string };

/**
 * leaseCall for berth_lease_acquire that also answers the session's pointer, read in the same
 * statement: a box call gets its holder and the route its operation takes in one round trip.
 * The pointer is null when the workspace has no such session.
 */
export function acquireCallWithPointer(db: DbClientOrTx) {
  return async (
    strings: TemplateStringsArray,
    ...values: LeaseArg[]
  ): Promise<{ row: TransitionRow; pointer: SessionPointer | null }> => {
    const rows = await queryRows<
      RawTransitionRow & { active_sandbox_id: string | null; active_epoch: number | null }
    >(db, statementFor(strings, WITH_POINTER), values);
    const [raw] = rows;
    const row = singleRow(rows.map(transitionRow));
    return { row, pointer: pointerOf(raw) };
  };
}

function pointerOf(
  raw: { active_sandbox_id: string | null; active_epoch: number | null } | undefined,
): SessionPointer | null {
  return raw?.active_epoch === null || raw?.active_epoch === undefined
    ? null
    : { activeSandboxId: raw.active_sandbox_id, activeEpoch: raw.active_epoch };
}

/** A write's admission as the acquire statement made it; null when it did not try. */
export type StatementAdmission = AdmitWriteOutcome | null;

const ACQUIRE_ADMIT = preparedOnce(`
  SELECT outcome, reason, lease, active_sandbox_id, active_epoch, admit_outcome, admit_reason,
         admission_id, generation
    FROM berth_lease_acquire_admit($1::uuid, $2::uuid, $3, $4, $5::text, $6::int, $7::int,
      $8::int, $9::timestamptz, $10)`);

const CALL_ACQUIRE = preparedOnce(`
  SELECT outcome, reason, lease, active_sandbox_id, active_epoch, admit_outcome, admit_reason,
         admission_id, generation
    FROM berth_call_acquire($1::uuid, $2::uuid, $3, $4, $5::text, $6::int, $7::int,
      $8::int, $9::timestamptz, $10)`);

/** berth_lease_acquire's arguments, then a write's operation name (null: a read). */
export type AcquireArgs<TOperation> = readonly [
  workspaceId: string,
  sessionId: string,
  kind: string,
  holderId: string,
  profile: string | null,
  leaseTtlMs: number,
  warmingTtlMs: number,
  expectedEpoch: number | null,
  now: Date,
  operation: TOperation,
];

type AcquireRow = RawTransitionRow & {
  active_sandbox_id: string | null;
  active_epoch: number | null;
  admit_outcome: string | null;
  admit_reason: string | null;
  admission_id: string | null;
  generation: number | null;
};

/** A holder, the pointer as read after it was taken, and a write's admission if one was made. */
export interface StatementAcquired {
  readonly row: TransitionRow;
  readonly pointer: SessionPointer | null;
  readonly admission: StatementAdmission;
}

function acquiredOf(rows: readonly AcquireRow[]): StatementAcquired {
  const [raw] = rows;
  const row = singleRow(rows.map(transitionRow));
  const admission =
    raw?.admit_outcome === null || raw?.admit_outcome === undefined
      ? null
      : admissionOutcome({ ...raw, outcome: raw.admit_outcome, reason: raw.admit_reason });
  return { row, pointer: pointerOf(raw), admission };
}

/**
 * berth_lease_acquire_admit: berth_lease_acquire's arguments and a write's operation name, and
 * when the holder attaches to a warm lease routed to its group box, the write's admission too —
 * a box call's holder, route and admission in one round trip.
 */
export async function acquireAndAdmitCall(
  db: DbClientOrTx,
  args: AcquireArgs<string>,
): Promise<StatementAcquired> {
  return acquiredOf(await queryRows<AcquireRow>(db, ACQUIRE_ADMIT, [...args]));
}

/**
 * berth_call_acquire: a box call's acquire, which follows the session's pointer. Routed to an
 * enrolled machine it takes nothing and answers the pointer (`routed`); otherwise as
 * acquireAndAdmitCall (a write) or an acquire with the pointer (a read, operation null).
 */
export async function callAcquireCall(
  db: DbClientOrTx,
  args: AcquireArgs<string | null>,
): Promise<{ readonly routed: MachinePointer } | StatementAcquired> {
  const rows = await queryRows<AcquireRow>(db, CALL_ACQUIRE, [...args]);
  const [raw] = rows;
  if (raw?.outcome === "routed") {
    const machine = raw.active_sandbox_id;
    if (machine === null || raw.active_epoch === null)
      throw new Error("berth_call_acquire answered routed without a machine");
    return { routed: { activeSandboxId: machine, activeEpoch: raw.active_epoch } };
  }
  return acquiredOf(rows);
}

/**
 * Calls one lease function: one statement, one round trip. The function's name and arguments are
 * a Prisma.Sql fragment, so every value is a bound parameter.
 */
export async function callLeaseFunction(
  db: DbClientOrTx,
  call: Prisma.Sql,
): Promise<TransitionRow[]> {
  const rows = await db.$queryRaw<RawTransitionRow[]>(
    Prisma.sql`SELECT outcome, reason, lease FROM ${call}`,
  );
  return rows.map(transitionRow);
}

/** The single row of a function that answers once. */
export async function callLeaseFunctionOnce(
  db: DbClientOrTx,
  call: Prisma.Sql,
): Promise<TransitionRow> {
  return singleRow(await callLeaseFunction(db, call));
}

function transitionRow(row: RawTransitionRow): TransitionRow {
  return {
    outcome: row.outcome,
    reason: row.reason,
    lease: row.lease === null ? null : parseLeaseRow(row.lease),
  };
}

function singleRow(rows: readonly TransitionRow[]): TransitionRow {
  const [row] = rows;
  if (row === undefined) throw new Error("lease function returned no row");
  return row;
}

export { Prisma };
