// Closed unions mirrored by the SQL CHECKs of prisma/migrations; a test proves each
// CHECK allows exactly its union's members.

/** A member's role in a workspace. */
export const membershipRoles = ["owner", "admin", "member"] as const;
export type MembershipRole = (typeof membershipRoles)[number];

/** Where a sandbox group's box runs. */
export const sessionBackends = ["local", "kubernetes"] as const;
export type SessionBackend = (typeof sessionBackends)[number];

/** Every CHECKed text column and the union it mirrors, by table and column. */
export const checkedColumns = [
  { table: "memberships", column: "role", values: membershipRoles },
  { table: "sessions", column: "backend", values: sessionBackends },
] as const satisfies readonly { table: string; column: string; values: readonly string[] }[];
