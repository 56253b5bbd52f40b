import type { RouterInputs } from "@berth/api";

/** A membership role, as the API accepts it. */
export type Role = RouterInputs["members"]["setRole"]["role"];

// The rank decides only what the page offers; the API checks every change again.
const rank: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** Every role, lowest first. */
export const roles: readonly Role[] = ["member", "admin", "owner"];

/** A role read back from the API; anything unknown is treated as the least privileged. */
export function asRole(value: string): Role {
  return value === "owner" || value === "admin" ? value : "member";
}

/** Whether `role` carries at least the rights of `required`. */
export function roleAtLeast(role: Role, required: Role): boolean {
  return rank[role] >= rank[required];
}

/** The roles someone with `role` may hand out: never more than their own. */
export function rolesUpTo(role: Role): readonly Role[] {
  return roles.filter((candidate) => roleAtLeast(role, candidate));
}

export function isAdmin(role: Role): boolean {
  return roleAtLeast(role, "admin");
}
