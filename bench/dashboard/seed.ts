import type { DbClient } from "@berth/db";

export interface SeededDashboard {
  readonly workspaceId: string;
  /** The newest session: the one whose page lists the machines. */
  readonly sessionId: string;
  /** A title exactly one session has, for the filter's keystroke. */
  readonly needle: string;
}

/**
 * `sessions` sessions in the demo workspace (titles `task 0001` …) and `machines` enrolled
 * machines, which every session lists beside its group box. Set-based inserts: seconds, not
 * a statement per row.
 */
export async function seedDashboard(
  db: DbClient,
  counts: { sessions: number; machines: number },
): Promise<SeededDashboard> {
  const workspace = await db.workspace.findUniqueOrThrow({ where: { slug: "demo" } });
  await db.$executeRaw`
    INSERT INTO sessions (workspace_id, title, sandbox_group_id, backend, created_at, updated_at)
    SELECT ${workspace.id}::uuid, 'task ' || lpad(i::text, 4, '0'), gen_random_uuid(), 'local',
           now() - make_interval(secs => ${counts.sessions} - i), now()
      FROM generate_series(1, ${counts.sessions}::int) AS i`;
  await db.$executeRaw`
    INSERT INTO machines (workspace_id, name, os, arch, has_display, last_seen_at)
    SELECT ${workspace.id}::uuid, 'machine-' || lpad(i::text, 3, '0'),
           CASE WHEN i % 3 = 0 THEN 'darwin' ELSE 'linux' END,
           CASE WHEN i % 2 = 0 THEN 'arm64' ELSE 'x86_64' END,
           i % 5 = 0,
           CASE WHEN i % 4 = 0 THEN NULL ELSE now() END
      FROM generate_series(1, ${counts.machines}::int) AS i`;
  const newest = await db.session.findFirstOrThrow({
    where: { workspaceId: workspace.id },
    orderBy: { createdAt: "desc" },
  });
  const needleIndex = Math.max(1, counts.sessions - 1);
  return {
    workspaceId: workspace.id,
    sessionId: newest.id,
    needle: `task ${String(needleIndex).padStart(4, "0")}`,
  };
}
