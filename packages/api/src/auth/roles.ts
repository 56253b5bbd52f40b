import { membershipRoles, type MembershipRole } from "@berth/db";

const rank: Record<MembershipRole, number> = { member: 0, admin: 1, owner: 2 };

/** Whether `role` carries at least the rights of `required`. */
export function roleAtLeast(role: MembershipRole, required: MembershipRole): boolean {
  return rank[role] >= rank[required];
}

/** The lower of two roles: what a token may do is capped by its user's current role. */
export function lowerRole(a: MembershipRole, b: MembershipRole): MembershipRole {
  return rank[a] <= rank[b] ? a : b;
}

export function isMembershipRole(value: string): value is MembershipRole {
  return (membershipRoles as readonly string[]).includes(value);
}
