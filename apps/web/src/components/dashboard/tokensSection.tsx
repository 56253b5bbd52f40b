"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatTime } from "../../lib/formatTime.ts";
import { isAdmin, type Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { QueryTable } from "../queryTable.tsx";
import { Section } from "../section.tsx";
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
    <Section title="API tokens">
      <NewTokenForm workspaceId={workspaceId} role={role} />
      <ErrorAlert error={revoke.error} />
      <QueryTable
        query={tokens}
        loading="Loading tokens…"
        failure="Could not load tokens"
        empty="No tokens yet."
        columns={["Name", "Role", showOwner && "Owner", "Last used", "Expires", ""]}
        row={(token) => (
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
        )}
      />
    </Section>
  );
}
