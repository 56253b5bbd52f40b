"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../trpc/react.tsx";
import { QueryTable } from "../queryTable.tsx";
import { Section } from "../section.tsx";
import { MachineRow } from "./machineRow.tsx";

/**
 * How often the list is read again: an agent's heartbeat moves "last seen" every 15 s, and a
 * machine that connects or is revoked elsewhere should show within a few seconds.
 */
export const MACHINES_REFETCH_MS = 3_000;

/**
 * The workspace's enrolled machines, revoked ones included, read again every few seconds and
 * after each change made here. Admins get each row's actions.
 */
export function EnrolledMachinesSection({
  workspaceId,
  admin,
}: {
  workspaceId: string;
  admin: boolean;
}) {
  const trpc = useTRPC();
  const machines = useQuery({
    ...trpc.machines.listWorkspace.queryOptions({ workspaceId }),
    refetchInterval: MACHINES_REFETCH_MS,
  });
  const online = machines.data?.filter((machine) => machine.state === "online").length ?? 0;

  return (
    <Section
      title="Enrolled machines"
      description="Online while its agent is connected (heard from within the last 90 s)."
      action={
        machines.data === undefined ? undefined : (
          <span className="text-sm text-muted-foreground" data-testid="machines-online">
            {online} of {machines.data.length} online
          </span>
        )
      }
    >
      <QueryTable
        query={machines}
        loading="Loading machines…"
        failure="Could not load the machines"
        empty={{
          title: "No machines enrolled yet.",
          next: admin ? (
            <>
              Enroll one above (or with <code>berth machines enroll</code>): run the two commands it
              shows on the machine, and it appears here once its agent connects.
            </>
          ) : (
            <>
              An admin of this workspace enrolls a machine from this page (or with{" "}
              <code>berth machines enroll</code>); it appears here once its agent connects.
            </>
          ),
        }}
        columns={[
          "Name",
          "State",
          "Last seen",
          "Platform",
          "Display",
          "boxd",
          "Enrolled",
          admin && "",
        ]}
        row={(machine) => (
          <MachineRow
            key={machine.id}
            workspaceId={workspaceId}
            machine={machine}
            now={machines.dataUpdatedAt}
            admin={admin}
          />
        )}
      />
    </Section>
  );
}
