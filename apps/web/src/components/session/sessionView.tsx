"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { Section } from "../section.tsx";
import { LeaseTimeline } from "./leaseTimeline.tsx";
import { MachinesTable } from "./machinesTable.tsx";
import { useViewerHolder } from "./useViewerHolder.ts";

/**
 * A session's machines and its lease's timeline, live: every item of the session's event
 * stream (a lease change, a generation, a transfer's progress) refetches both, so state,
 * generations and the timeline move without a reload.
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
  const live = useSubscription(
    trpc.events.session.subscriptionOptions(scope, {
      onData: () => {
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
      <h1>{title ?? "Session"}</h1>
      <p className="note">
        <code>{sessionId}</code> · {session.data?.backend ?? "…"} ·{" "}
        <span data-testid="live-status">
          {live.status === "pending"
            ? "live"
            : live.status === "error"
              ? "not live"
              : "connecting…"}
        </span>
        {viewing === null ? null : <> · viewing the box (epoch {viewing})</>}
      </p>
      {live.status === "error" ? (
        <p role="status" className="note">
          Live updates stopped ({live.error.message}); reload the page to see the latest.
        </p>
      ) : null}
      <Section title="Machines">
        <MachinesTable query={machines} />
      </Section>
      <Section title="Lease timeline">
        <LeaseTimeline query={timeline} />
      </Section>
    </>
  );
}
