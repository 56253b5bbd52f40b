import type { TRPCRouterRecord } from "@trpc/server";

// Each router declares, beside its procedures, a valid input for every one of them and who may
// call it. The isolation and role matrices (test/matrix.test.ts) are generated from the router
// and these declarations; a procedure without one fails them.

/** The ids of one seeded workspace ("victim") that the matrices point procedures at. */
export interface FixtureWorld {
  readonly workspaceId: string;
  readonly sessionId: string;
  /** A session with no box yet: box procedures spawn one for it on first use. */
  readonly boxSessionId: string;
  /** The revision of an available archive of the session's box, which is blocked (unrecoverable). */
  readonly archiveRevision: string;
  /** A plain member, whose role the admin may change. */
  readonly memberUserId: string;
  /** A member the admin may remove. */
  readonly spareUserId: string;
  readonly tokenId: string;
  /** A pending invitation the admin may revoke... */
  readonly invitationId: string;
  /** ...and the link token of another, which someone may accept. */
  readonly invitationToken: string;
  /** A machine enrolled in the workspace (renamed, then revoked, by the positive pass). */
  readonly machineId: string;
}

/**
 * Who may call a procedure: anyone; any signed-in caller; a person (not a token: with a `tenant`
 * scope, a person who is a member of the input's workspace); a member of the input's workspace;
 * an admin of it.
 */
export type Access = "public" | "authed" | "person" | "member" | "admin";

export interface ProcedureFixture {
  readonly access: Access;
  /**
   * `tenant`: it names a workspace (and maybe a session, member, token, invitation): an outsider
   * must get NOT_FOUND or FORBIDDEN and change nothing. `own`: it acts only on the caller's own
   * identity or creates something new. `capability`: the input is itself a secret (a link).
   */
  readonly scope: "tenant" | "own" | "capability";
  /** Refused to API tokens even where `access` would let one in (`person` implies it). */
  readonly refusesTokens?: true;
  input(world: FixtureWorld): unknown;
  /**
   * When even the rightful caller's call is answered by the box with this error code (the
   * fixture names a terminal that does not exist): proof the call passed scoping and reached it.
   */
  readonly rightfulAnswer?: "terminal_not_found";
}

/** One fixture per procedure of a router record, checked by the compiler. */
export type RouterFixtures<R extends TRPCRouterRecord> = {
  readonly [K in keyof R]: ProcedureFixture;
};
