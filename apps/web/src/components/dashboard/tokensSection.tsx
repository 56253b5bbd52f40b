"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatTime } from "../../lib/formatTime.ts";
import { isAdmin, type Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { NewTokenForm } from "./newTokenForm.tsx";

/** API tokens for scripts and the CLI: a member sees their own, an admin every one here. */
export function TokensSection({ workspaceId, role }: { workspaceId: string; role: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions({ workspaceId }));
  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({
      onSettled: () =>
        Promise.all([
          queryClient.invalidateQueries(trpc.tokens.pathFilter()),
          queryClient.invalidateQueries(trpc.audit.pathFilter()),
        ]),
    }),
  );
  const showOwner = isAdmin(role);

  return (
    <section aria-label="API tokens">
      <h2>API tokens</h2>
      <NewTokenForm workspaceId={workspaceId} role={role} />
      {tokens.isPending ? <p aria-busy="true">Loading tokens…</p> : null}
      <ErrorAlert error={tokens.error} prefix="Could not load tokens" />
      <ErrorAlert error={revoke.error} />
      {tokens.data?.length === 0 ? <p className="note">No tokens yet.</p> : null}
      {tokens.data !== undefined && tokens.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              {showOwner ? <th scope="col">Owner</th> : null}
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((token) => (
              <tr key={token.id}>
                <td>{token.name}</td>
                <td>{token.role}</td>
                {showOwner ? <td>{token.user.email}</td> : null}
                <td>{formatTime(token.lastUsedAt)}</td>
                <td>{formatTime(token.expiresAt)}</td>
                <td>
                  {token.revokedAt === null ? (
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Revoke ${token.name}`}
                      disabled={revoke.isPending}
                      onClick={() => {
                        revoke.mutate({ workspaceId, tokenId: token.id });
                      }}
                    >
                      Revoke
                    </button>
                  ) : (
                    `revoked ${formatTime(token.revokedAt)}`
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
