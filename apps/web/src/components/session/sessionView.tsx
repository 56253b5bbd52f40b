"use client";

import { Alert, AlertDescription, AlertTitle } from "@berth/ui/alert";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { asRole, isAdmin } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { Section } from "../section.tsx";
import { LeaseTimeline } from "./leaseTimeline.tsx";
import { LiveBadge } from "./liveBadge.tsx";
import { ArchiveHelp } from "./archiveHelp.tsx";
import { ArchiveTransfer, type ArchiveTransferView } from "./archiveTransfer.tsx";
import { MachinesTable } from "./machinesTable.tsx";
import { useViewerHolder } from "./useViewerHolder.ts";
import { WorkspacePanels } from "./workspacePanels.tsx";

/**
 * A session's machines and its lease's timeline, live: every item of the session's event
 * stream (a lease change, a generation, a transfer's progress) refetches both, so state,
 * generations and the timeline move without a reload; the last archive transfer (capture or
 * restore) is drawn as a bar under the machines, failed ones included. A swap (the route item)
 * re-reads the session too, whose activeEpoch an admin's next swap expects.
 */
export function SessionView({
  workspaceId,
  sessionId,
}: {
  workspaceId: string;
  sessionId: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const scope = { workspaceId, sessionId };
  const session = useQuery(trpc.sessions.get.queryOptions(scope));
  const machines = useQuery(trpc.machines.list.queryOptions(scope));
  const timeline = useQuery(trpc.leases.timeline.queryOptions({ ...scope, limit: 200 }));
  const me = useQuery(trpc.me.get.queryOptions());
  const role = me.data?.workspaces.find((workspace) => workspace.id === workspaceId)?.role;
  const epoch = session.data?.activeEpoch;
  const [transfer, setTransfer] = useState<ArchiveTransferView | null>(null);
  const live = useSubscription(
    trpc.events.session.subscriptionOptions(scope, {
      onData: (item) => {
        if ("kind" in item && item.kind === "transfer") setTransfer(item);
        if ("kind" in item && item.kind === "route")
          void queryClient.invalidateQueries(trpc.sessions.get.queryFilter(scope));
        void queryClient.invalidateQueries(trpc.machines.list.queryFilter(scope));
        void queryClient.invalidateQueries(trpc.leases.timeline.pathFilter());
      },
    }),
  );

  const groupBox = machines.data?.find((machine) => machine.isSessionGroup);
  const viewing = useViewerHolder({
    workspaceId,
    sessionId,
    boxLive: groupBox?.state === "warm" || groupBox?.state === "draining",
  });

  if (session.isError)
    return <ErrorAlert error={session.error} prefix="Could not open this session" />;
  const title = session.data?.title === "" ? "Untitled session" : session.data?.title;
  return (
    <>
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{title ?? "Session"}</h1>
        <p className="flex flex-wrap items-center gap-2 text-sm text-muted-foreground">
          <code>{sessionId}</code>
          <span aria-hidden="true">·</span>
          <span>{session.data?.backend ?? "…"}</span>
          <span aria-hidden="true">·</span>
          <LiveBadge status={live.status} />
          {viewing === null ? null : (
            <>
              <span aria-hidden="true">·</span>
              <span>viewing the box (epoch {viewing})</span>
            </>
          )}
        </p>
      </div>
      {live.status === "error" ? (
        <Alert role="status" variant="warning">
          <AlertTitle>Live updates stopped</AlertTitle>
          <AlertDescription>
            {live.error.message}. Reload the page to see the latest.
          </AlertDescription>
        </Alert>
      ) : null}
      <Section
        title="Machines"
        description="The session's group box, then the workspace's enrolled machines: state, isolation, lease epoch, generations and archive, live."
        action={<ArchiveHelp />}
      >
        <MachinesTable
          query={machines}
          {...(role !== undefined && isAdmin(asRole(role)) && epoch !== undefined
            ? { swap: { workspaceId, sessionId, expectedEpoch: epoch } }
            : {})}
        />
        {transfer === null ? null : <ArchiveTransfer transfer={transfer} />}
      </Section>
      <WorkspacePanels workspaceId={workspaceId} sessionId={sessionId} />
      <Section
        title="Lease timeline"
        description="Every transition of the box's lease, with the epoch it left; hover a point for who and why."
      >
        <LeaseTimeline query={timeline} />
      </Section>
    </>
  );
}
