"use client";

import { Badge } from "@berth/ui/badge";
import { Skeleton } from "@berth/ui/skeleton";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { asRole, isAdmin } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { NotInLinkedWorkspace } from "./notInLinkedWorkspace.tsx";
import { PageMain } from "../pageMain.tsx";
import { TopBar } from "../topBar.tsx";
import { WorkspacePages } from "../workspacePages.tsx";
import { AuditSection } from "./auditSection.tsx";
import { CreateWorkspaceForm } from "./createWorkspaceForm.tsx";
import { MembersSection } from "./membersSection.tsx";
import { SessionsPending } from "./sessionsPending.tsx";
import { TokensSection } from "./tokensSection.tsx";
import { WorkspaceSwitcher } from "./workspaceSwitcher.tsx";

/**
 * One workspace of the signed-in person: the one named in `?workspace=`, else their first.
 * Admin-only parts are not rendered at all for members (the API refuses them anyway). The top
 * bar is drawn here because its workspace switcher needs the person's workspaces.
 */
export function WorkspaceView({
  email,
  requestedId,
  sessions,
}: {
  email: string;
  requestedId: string | undefined;
  /** The sessions section the server rendered, for the workspace it found this view shows. */
  sessions: { workspaceId: string; section: ReactNode } | undefined;
}) {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.get.queryOptions());

  if (me.isPending) {
    return (
      <>
        <TopBar home="/" email={email} />
        <PageMain aria-busy>
          <span className="sr-only">Loading your workspaces…</span>
          <Skeleton className="h-8 w-64" />
          <Skeleton className="h-4 w-40" />
          <Skeleton className="h-64 w-full rounded-xl" />
        </PageMain>
      </>
    );
  }
  if (me.isError) {
    return (
      <>
        <TopBar home="/" email={email} />
        <PageMain>
          <ErrorAlert error={me.error} prefix="Could not load your workspaces" />
        </PageMain>
      </>
    );
  }

  const { workspaces, user } = me.data;
  const requested = workspaces.find((w) => w.id === requestedId);
  const current = requested ?? workspaces[0];
  if (current === undefined) {
    return (
      <>
        <TopBar home="/" email={email} />
        <PageMain narrow>
          <div className="flex flex-col gap-1">
            <h1 className="text-2xl font-semibold tracking-tight">Welcome to Berth</h1>
            <p className="text-muted-foreground">
              You are not in any workspace yet. Create one, or open an invitation link.
            </p>
          </div>
          <CreateWorkspaceForm />
        </PageMain>
      </>
    );
  }
  const role = asRole(current.role);
  return (
    <>
      <TopBar home="/" email={email}>
        <WorkspaceSwitcher workspaces={workspaces} currentId={current.id} />
      </TopBar>
      <PageMain>
        {requestedId !== undefined && requested === undefined ? (
          <NotInLinkedWorkspace shown={current.name} />
        ) : null}
        <div className="flex flex-col gap-1.5">
          <h1 className="text-2xl font-semibold tracking-tight">{current.name}</h1>
          <p className="flex items-center gap-2 text-sm text-muted-foreground">
            <code>{current.slug}</code>
            <span aria-hidden="true">·</span>
            <span>
              you are {role === "admin" || role === "owner" ? "an" : "a"}{" "}
              <Badge variant="secondary">{role}</Badge>
            </span>
          </p>
        </div>
        <WorkspacePages workspaceId={current.id} current="overview" />
        {sessions?.workspaceId === current.id ? (
          sessions.section
        ) : (
          <SessionsPending workspaceId={current.id} />
        )}
        <div className="grid gap-6">
          <MembersSection workspaceId={current.id} role={role} myUserId={user.id} />
          <TokensSection workspaceId={current.id} role={role} />
          {isAdmin(role) ? <AuditSection workspaceId={current.id} /> : null}
        </div>
      </PageMain>
    </>
  );
}
