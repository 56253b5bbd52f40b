import type { DbClientOrTx } from "@berth/db";

/** The longest machine name (the enroll request's bound, and rename's). */
export const MACHINE_NAME_MAX = 63;

/** What a machine is called when its agent names none. */
export const DEFAULT_MACHINE_NAME = "machine";

/** How many times a clash with a concurrent enrollment is retried before giving up. */
const INSERT_ATTEMPTS = 5;

export interface NewMachine {
  readonly workspaceId: string;
  /** The name asked for; the machine gets it or, taken, the first free `name-2`, `name-3`… */
  readonly name: string;
  readonly os: string;
  readonly arch: string;
  readonly hasDisplay: boolean;
  readonly boxdVersion: string;
  readonly now: Date;
}

/**
 * Inserts a machine under the first free variant of its name in its workspace. The insert is
 * `ON CONFLICT DO NOTHING`: a concurrent enrollment that takes the same name between the read of
 * the taken names and the insert makes it return nothing (rather than abort the transaction),
 * and the next variant is tried. Revoked machines keep their names (they are still listed).
 */
export async function insertMachineWithFreeName(
  db: DbClientOrTx,
  machine: NewMachine,
): Promise<{ id: string; name: string }> {
  for (let attempt = 0; attempt < INSERT_ATTEMPTS; attempt += 1) {
    // Every name a variant could clash with: those sharing the part no suffix can cut away.
    const taken = await db.machine.findMany({
      where: {
        workspaceId: machine.workspaceId,
        name: { startsWith: machine.name.slice(0, MACHINE_NAME_MAX - 8) },
      },
      select: { name: true },
    });
    const name = firstFreeName(machine.name, new Set(taken.map((row) => row.name)));
    const inserted = await db.$queryRaw<{ id: string }[]>`
      INSERT INTO machines (workspace_id, name, os, arch, has_display, boxd_version, created_at)
      VALUES (${machine.workspaceId}::uuid, ${name}, ${machine.os}, ${machine.arch},
              ${machine.hasDisplay}, ${machine.boxdVersion}, ${machine.now})
      ON CONFLICT (workspace_id, name) DO NOTHING
      RETURNING id::text AS id`;
    const row = inserted[0];
    if (row !== undefined) return { id: row.id, name };
  }
  throw new Error(
    `no free machine name like "${machine.name}" after ${String(INSERT_ATTEMPTS)} tries`,
  );
}

/** `name`, else `name-2`, `name-3`…: the first not in `taken`, each at most MACHINE_NAME_MAX long. */
export function firstFreeName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(baseOf(name, ""))) return baseOf(name, "");
  for (let n = 2; ; n += 1) {
    const suffix = `-${String(n)}`;
    const candidate = `${baseOf(name, suffix)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The name cut so that it and `suffix` fit MACHINE_NAME_MAX. */
function baseOf(name: string, suffix: string): string {
  return name.slice(0, MACHINE_NAME_MAX - suffix.length);
}
