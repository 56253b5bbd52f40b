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

/** A sign-up: the invitation link's token it came with (its header), the email it creates. */
interface SignUp {
  readonly token: string | null | undefined;
  readonly email: string;
  readonly now: Date;
}

/** The link's token, or a 403 saying a sign-up needs one. */
function linkToken(signUp: SignUp): string {
  if (signUp.token === null || signUp.token === undefined || signUp.token === "")
    throw new APIError("FORBIDDEN", {
      code: "INVITATION_REQUIRED",
      message: "Sign-up needs an invitation: ask a workspace admin for an invitation link.",
    });
  return signUp.token;
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
export async function checkSignUpInvitation(db: DbClient, input: SignUp): Promise<void> {
  const found = await db.invitation.count({
    where: claimableWhere(linkToken(input), input.email, input.now),
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
export async function claimSignUpInvitation(db: DbClient, input: SignUp): Promise<void> {
  const { count } = await db.invitation.updateMany({
    where: claimableWhere(linkToken(input), input.email, input.now),
    data: { signUpEmail: input.email },
  });
  if (count === 0) throw invitationUnusable();
}
