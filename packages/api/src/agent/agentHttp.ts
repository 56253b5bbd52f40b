// What the agent endpoints share: the machine behind a bearer credential, and the error body
// boxd's clients already read ({error:{code, message}}, box-protocol's errorBodySchema).
import type { BoxErrorCode, ErrorBody } from "@berth/box-protocol";
import type { DbClient } from "@berth/db";
import {
  authenticateMachine,
  machineCredentialHash,
  type AgentChannels,
  type ConnectingMachine,
} from "@berth/sandbox";

/** What the channel and replies endpoints are built over. */
export interface AgentEndpointDeps {
  readonly db: DbClient;
  readonly channels: AgentChannels;
}

/** The machine a request's `Authorization: Bearer <credential>` admits, or undefined. */
export async function machineOf(
  db: DbClient,
  request: Request,
): Promise<ConnectingMachine | undefined> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  const credential = match?.[1];
  if (credential === undefined) return undefined;
  const machine = await authenticateMachine(db, credential);
  return machine === undefined
    ? undefined
    : { ...machine, credentialHash: machineCredentialHash(credential) };
}

/** A JSON error answer in the box protocol's shape. */
export function agentError(status: number, code: BoxErrorCode, message: string): Response {
  const body: ErrorBody = { error: { code, message } };
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}

export const UNAUTHORIZED_MESSAGE =
  "this machine's credential is unknown or revoked: enroll the machine again (`berth machines enroll`)";
