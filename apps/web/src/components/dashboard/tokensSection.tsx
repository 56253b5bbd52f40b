"use client";

import { Badge } from "@berth/ui/badge";
import { Button } from "@berth/ui/button";
import { TableCell, TableRow } from "@berth/ui/table";
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
    <Section
      title="API tokens"
      description={
        <>
          For scripts and the <code>berth</code> command line; each acts with its own role.
        </>
      }
    >
      <NewTokenForm workspaceId={workspaceId} role={role} />
      <ErrorAlert error={revoke.error} />
      <QueryTable
        query={tokens}
        loading="Loading tokens…"
        failure="Could not load tokens"
        empty={{
          title: "No tokens yet.",
          next: (
            <>
              Create one above, or run <code>berth login</code>, which makes one for the machine it
              runs on.
            </>
          ),
        }}
        columns={["Name", "Role", showOwner && "Owner", "Last used", "Expires", ""]}
        row={(token) => (
          <TableRow key={token.id}>
            <TableCell className="font-medium">{token.name}</TableCell>
            <TableCell>
              <Badge variant="secondary">{token.role}</Badge>
            </TableCell>
            {showOwner ? <TableCell>{token.user.email}</TableCell> : null}
            <TableCell className="whitespace-nowrap text-muted-foreground">
              {formatTime(token.lastUsedAt)}
            </TableCell>
            <TableCell className="whitespace-nowrap text-muted-foreground">
              {formatTime(token.expiresAt)}
            </TableCell>
            <TableCell className="w-28 text-right">
              {token.revokedAt === null ? (
                <Button
                  type="button"
                  variant="destructive-outline"
                  size="sm"
                  aria-label={`Revoke ${token.name}`}
                  disabled={revoke.isPending}
                  onClick={() => {
                    revoke.mutate({ workspaceId, tokenId: token.id });
                  }}
                >
                  Revoke
                </Button>
              ) : (
                <Badge variant="muted">revoked {formatTime(token.revokedAt)}</Badge>
              )}
            </TableCell>
          </TableRow>
        )}
      />
    </Section>
  );
}
