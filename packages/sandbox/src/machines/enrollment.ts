/**
 * Enrolling a machine (issue 39): an admin makes a one-time code; the machine's agent redeems it
 * once, before it expires, for a machine row and a credential. Both values leave Berth once and
 * are kept only as hashes.
 */
import type { DbClientOrTx } from "@berth/db";
import type { AgentFacts } from "@berth/box-protocol";
import { enrollmentCodeHash, newEnrollmentCode } from "./enrollmentCode.ts";
import { machineCredentialHash, newMachineCredential } from "./machineCredential.ts";
import { DEFAULT_MACHINE_NAME, insertMachineWithFreeName } from "./machineNames.ts";
import { inTransaction } from "./machineTransaction.ts";

/** How long a code is good for unless its creator says otherwise. */
export const ENROLLMENT_CODE_TTL_MS = 10 * 60_000;

/** Why a code was refused. `unknown` also covers a code of a deleted workspace. */
export type EnrollmentRefusal = "unknown" | "used" | "expired";

/** A code that enrolls nothing; nothing was written. */
export class EnrollmentRefusedError extends Error {
  override readonly name = "EnrollmentRefusedError";
  readonly reason: EnrollmentRefusal;

  constructor(reason: EnrollmentRefusal) {
    super(`the enrollment code is ${refusalWords(reason)}`);
    this.reason = reason;
  }
}

/** How a refusal reads to the person at the machine. */
export function refusalWords(reason: EnrollmentRefusal): string {
  switch (reason) {
    case "unknown":
      return "unknown";
    case "used":
      return "already used";
    case "expired":
      return "expired";
    default:
      return assertNever(reason);
  }
}

/**
 * Who made a code: a person or an API token (the API's audit actor). Kept on the code as
 * `<kind>:<id>` so the enrollment, which happens later without them, is audited in their name.
 */
export interface EnrollmentCodeCreator {
  readonly kind: "user" | "token";
  readonly id: string;
}

export interface NewEnrollmentCode {
  /** The code's row (for an audit row's target); not the code. */
  readonly id: string;
  /** `XXXXX-XXXXX-XXXXX-XXXXX`: shown once, never stored. */
  readonly code: string;
  readonly expiresAt: Date;
}

/** A new one-time code for `workspaceId`, good for `ttlMs` (default ENROLLMENT_CODE_TTL_MS). */
export async function createEnrollmentCode(
  db: DbClientOrTx,
  options: { workspaceId: string; createdBy: EnrollmentCodeCreator; now: Date; ttlMs?: number },
): Promise<NewEnrollmentCode> {
  const ttlMs = options.ttlMs ?? ENROLLMENT_CODE_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new RangeError(`an enrollment code must live a while (ttlMs ${String(ttlMs)})`);
  const code = newEnrollmentCode();
  const expiresAt = new Date(options.now.getTime() + ttlMs);
  const row = await db.machineEnrollmentCode.create({
    select: { id: true },
    data: {
      workspaceId: options.workspaceId,
      codeHash: enrollmentCodeHash(code),
      createdBy: `${options.createdBy.kind}:${options.createdBy.id}`,
      expiresAt,
      createdAt: options.now,
    },
  });
  return { id: row.id, code, expiresAt };
}

export interface EnrolledMachine {
  readonly machineId: string;
  readonly workspaceId: string;
  /** The name it got: the one asked for, or `-2`, `-3`… after it when that was taken. */
  readonly name: string;
  /** The machine's credential: in this answer only; Berth keeps its hash. */
  readonly credential: string;
}

interface ClaimedCode {
  readonly id: string;
  readonly workspace_id: string;
  readonly created_by: string;
}

/**
 * Redeems a code for a machine and its credential, in one transaction. The code is claimed by a
 * compare-and-swap (used_at set only where it is null and the code unexpired at `now`): of two
 * concurrent redeems the second waits on the row, then finds it used and is refused, so one code
 * makes one machine. Only after a lost claim is the row read, to tell `used` from `expired`.
 *
 * The audit row names the code's creator as its actor: they authorized this enrollment by
 * handing out the code (and audit_events' actor kinds are people, tokens and Berth itself, not
 * machines); the machine is its target, and `after` says what it reported.
 */
export async function redeemEnrollmentCode(
  db: DbClientOrTx,
  options: { code: string; name?: string; facts: AgentFacts; now: Date },
): Promise<EnrolledMachine> {
  const { facts, now } = options;
  const codeHash = enrollmentCodeHash(options.code);
  return await inTransaction(db, async (tx) => {
    const [claimed] = await tx.$queryRaw<ClaimedCode[]>`
      UPDATE machine_enrollment_codes SET used_at = ${now}
       WHERE code_hash = ${codeHash} AND used_at IS NULL AND expires_at > ${now}
      RETURNING id::text AS id, workspace_id::text AS workspace_id, created_by`;
    if (claimed === undefined) throw new EnrollmentRefusedError(await whyRefused(tx, codeHash));
    const machine = await insertMachineWithFreeName(tx, {
      workspaceId: claimed.workspace_id,
      name: options.name ?? DEFAULT_MACHINE_NAME,
      os: facts.os,
      arch: facts.arch,
      hasDisplay: facts.hasDisplay,
      boxdVersion: facts.boxdVersion,
      now,
    });
    const credential = newMachineCredential();
    await tx.machineCredential.create({
      data: {
        machineId: machine.id,
        credentialHash: machineCredentialHash(credential),
        createdAt: now,
      },
    });
    await tx.machineEnrollmentCode.update({
      where: { id: claimed.id },
      data: { machineId: machine.id },
    });
    await tx.auditEvent.create({
      data: {
        workspaceId: claimed.workspace_id,
        ...creatorActor(claimed.created_by),
        action: "machine.enroll",
        targetKind: "machine",
        targetId: machine.id,
        after: {
          name: machine.name,
          os: facts.os,
          arch: facts.arch,
          hasDisplay: facts.hasDisplay,
          boxdVersion: facts.boxdVersion,
          codeId: claimed.id,
        },
        at: now,
      },
    });
    return {
      machineId: machine.id,
      workspaceId: claimed.workspace_id,
      name: machine.name,
      credential,
    };
  });
}

/** Why a claim found nothing: read after the claim lost, so a used code reads as used. */
async function whyRefused(db: DbClientOrTx, codeHash: string): Promise<EnrollmentRefusal> {
  const row = await db.machineEnrollmentCode.findUnique({
    where: { codeHash },
    select: { usedAt: true },
  });
  if (row === null) return "unknown";
  return row.usedAt !== null ? "used" : "expired";
}

/** The audit actor a code's created_by names (`system` for a value no creator writes). */
function creatorActor(createdBy: string): { actorKind: string; actorId: string } {
  const at = createdBy.indexOf(":");
  const kind = createdBy.slice(0, at);
  if (at > 0 && (kind === "user" || kind === "token"))
    return { actorKind: kind, actorId: createdBy.slice(at + 1) };
  return { actorKind: "system", actorId: createdBy };
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${String(value)}`);
}
