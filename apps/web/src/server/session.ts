import "server-only";
import { headers } from "next/headers";
import { berthApi } from "./berthApi.ts";

/** The person behind a request's session cookie. */
export interface SignedInUser {
  readonly id: string;
  readonly email: string;
  readonly name: string;
}

/** Who this request is signed in as, or null when there is no valid session cookie. */
export async function signedInUser(): Promise<SignedInUser | null> {
  // Headers first: reading them marks the page per-request, so the build never prerenders it
  // (and so never needs the API's environment).
  const requestHeaders = await headers();
  const session = await berthApi().auth.api.getSession({ headers: requestHeaders });
  if (session === null) return null;
  return { id: session.user.id, email: session.user.email, name: session.user.name };
}
