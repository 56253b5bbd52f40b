"use client";

import { Skeleton } from "@berth/ui/skeleton";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { asRole, isAdmin } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { WorkspaceSwitcher } from "../dashboard/workspaceSwitcher.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { NotInLinkedWorkspace } from "../dashboard/notInLinkedWorkspace.tsx";
import { PageMain } from "../pageMain.tsx";
import { TopBar } from "../topBar.tsx";
import { WorkspacePages } from "../workspacePages.tsx";
import { EnrollPanel } from "./enrollPanel.tsx";
import { EnrolledMachinesSection } from "./enrolledMachinesSection.tsx";

/**
 * The Machines page of one workspace (the one in `?workspace=`, else the person's first): its
 * enrolled machines, live, and for admins enrolling and managing them. Members see the list
 * only (the API refuses them the rest anyway).
 */
export function MachinesView({
  email,
  requestedId,
}: {
  email: string;
  requestedId: string | undefined;
}) {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.get.queryOptions());

  if (me.isPending || me.isError) {
    return (
      <>
        <TopBar home="/" email={email} />
        <PageMain aria-busy={me.isPending}>
          {me.isError ? (
            <ErrorAlert error={me.error} prefix="Could not load your workspaces" />
          ) : (
            <>
              <span className="sr-only">Loading your workspaces…</span>
              <Skeleton className="h-8 w-64" />
              <Skeleton className="h-64 w-full rounded-xl" />
            </>
          )}
        </PageMain>
      </>
    );
  }

  const { workspaces } = me.data;
  const requested = workspaces.find((w) => w.id === requestedId);
  const current = requested ?? workspaces[0];
  if (current === undefined) {
    return (
      <>
        <TopBar home="/" email={email} />
        <PageMain narrow>
          <h1 className="text-2xl font-semibold tracking-tight">Machines</h1>
          <p className="text-muted-foreground">
            You are not in any workspace yet: <Link href="/">create or join one</Link> first.
          </p>
        </PageMain>
      </>
    );
  }
  const admin = isAdmin(asRole(current.role));
  return (
    <>
      <TopBar home={`/?workspace=${current.id}`} email={email}>
        <WorkspaceSwitcher workspaces={workspaces} currentId={current.id} path="/machines" />
      </TopBar>
      <PageMain>
        {requestedId !== undefined && requested === undefined ? (
          <NotInLinkedWorkspace shown={current.name} />
        ) : null}
        <div className="flex flex-col gap-1.5">
          <h1 className="text-2xl font-semibold tracking-tight">Machines</h1>
          <p className="text-sm text-muted-foreground">
            {current.name}&apos;s own machines: each runs Berth&apos;s agent and serves files, git
            and commands inside the folder it was given.
          </p>
        </div>
        <WorkspacePages workspaceId={current.id} current="machines" />
        {admin ? <EnrollPanel workspaceId={current.id} /> : null}
        <EnrolledMachinesSection workspaceId={current.id} admin={admin} />
      </PageMain>
    </>
  );
}
