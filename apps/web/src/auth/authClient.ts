import type { invitationHeader as apiInvitationHeader } from "@berth/api";
import { createAuthClient } from "better-auth/react";

/** The browser's side of better-auth (sign-in, sign-up, sign-out), on this page's own origin. */
export const authClient = createAuthClient({ basePath: "/api/auth" });

/**
 * The header that carries an invitation token to sign-up. Spelled out rather than imported: the
 * value import would pull @berth/api's server code into the browser bundle, and `satisfies`
 * still fails the typecheck if the API renames it.
 */
export const invitationHeader = "x-berth-invitation" satisfies typeof apiInvitationHeader;
