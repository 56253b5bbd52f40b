import type { DbClient } from "@berth/db";
import { APIError } from "better-auth/api";
import { hashBearerSecret } from "./secrets.ts";

/**
 * A pending invitation, by the token in its link, that an account with `email` may be created
 * with: one no other email has claimed.
 */
function claimableWhere(token: string, email: string, now: Date) {
  return {
    tokenHash: hashBearerSecret(token),
    acceptedAt: null,
    revokedAt: null,
    expiresAt: { gt: now },
    OR: [{ signUpEmail: null }, { signUpEmail: email }],
  };
}

function invitationRequired(): APIError {
  return new APIError("FORBIDDEN", {
    code: "INVITATION_REQUIRED",
    message: "Sign-up needs an invitation: ask a workspace admin for an invitation link.",
  });
}

function invitationUnusable(): APIError {
  return new APIError("FORBIDDEN", {
    code: "INVITATION_UNUSABLE",
    message: "This invitation is unknown, used, revoked or expired; ask the admin for a new link.",
  });
}

/**
 * Refuses (403) a sign-up whose invitation could not create its account. A read, made before
 * better-auth looks the email up so no one uninvited learns who has an account; the claim below
 * is what decides.
 */
export async function checkSignUpInvitation(
  db: DbClient,
  input: { token: string | null | undefined; email: string; now: Date },
): Promise<void> {
  if (input.token === null || input.token === undefined || input.token === "")
    throw invitationRequired();
  const found = await db.invitation.count({
    where: claimableWhere(input.token, input.email, input.now),
  });
  if (found === 0) throw invitationUnusable();
}

/**
 * Claims the invitation for the account about to be written, or refuses (403). A
 * compare-and-swap on a row no other email has claimed, so of sign-ups racing on one link
 * exactly one claims it and the rest are refused before writing anything. The same email may
 * claim again, since an attempt can fail after its claim (say, at the insert); users.email is
 * unique, so one link still creates at most one account.
 */
export async function claimSignUpInvitation(
  db: DbClient,
  input: { token: string | null | undefined; email: string; now: Date },
): Promise<void> {
  if (input.token === null || input.token === undefined || input.token === "")
    throw invitationRequired();
  const { count } = await db.invitation.updateMany({
    where: claimableWhere(input.token, input.email, input.now),
    data: { signUpEmail: input.email },
  });
  if (count === 0) throw invitationUnusable();
}
