"use client";

import { useQuery } from "@tanstack/react-query";
import { asRole, isAdmin } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { AuditSection } from "./auditSection.tsx";
import { CreateWorkspaceForm } from "./createWorkspaceForm.tsx";
import { MembersSection } from "./membersSection.tsx";
import { SessionsSection } from "./sessionsSection.tsx";
import { TokensSection } from "./tokensSection.tsx";
import { WorkspaceSwitcher } from "./workspaceSwitcher.tsx";

/**
 * One workspace of the signed-in person: the one named in `?workspace=`, else their first.
 * Admin-only parts are not rendered at all for members (the API refuses them anyway).
 */
export function WorkspaceView({ requestedId }: { requestedId: string | undefined }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.get.queryOptions());

  if (me.isPending) return <p aria-busy="true">Loading your workspaces…</p>;
  if (me.isError) return <ErrorAlert error={me.error} prefix="Could not load your workspaces" />;

  const { workspaces, user } = me.data;
  const requested = workspaces.find((w) => w.id === requestedId);
  const current = requested ?? workspaces[0];
  if (current === undefined) {
    return (
      <>
        <h1>Welcome to Berth</h1>
        <p>You are not in any workspace yet. Create one, or open an invitation link.</p>
        <CreateWorkspaceForm />
      </>
    );
  }
  const role = asRole(current.role);
  return (
    <>
      {requestedId !== undefined && requested === undefined ? (
        <p role="status" className="note">
          You are not a member of the workspace in the link; showing {current.name} instead.
        </p>
      ) : null}
      {workspaces.length > 1 ? (
        <WorkspaceSwitcher workspaces={workspaces} currentId={current.id} />
      ) : null}
      <h1>{current.name}</h1>
      <p className="note">
        <code>{current.slug}</code> · you are {role === "admin" || role === "owner" ? "an" : "a"}{" "}
        {role}
      </p>
      <SessionsSection workspaceId={current.id} />
      <MembersSection workspaceId={current.id} role={role} myUserId={user.id} />
      <TokensSection workspaceId={current.id} role={role} />
      {isAdmin(role) ? <AuditSection workspaceId={current.id} /> : null}
    </>
  );
}
