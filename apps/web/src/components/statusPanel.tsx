"use client";

import { Skeleton } from "@berth/ui/skeleton";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "../trpc/react.tsx";
import { ErrorAlert } from "./errorAlert.tsx";
import { Section } from "./section.tsx";

/** As many placeholder lines as the panel has facts. */
const factLines = [0, 1, 2, 3, 4, 5];

/** One row of the facts list: a name, then its value (monospace for identifiers). */
function Fact({
  name,
  mono = false,
  testId,
  children,
}: {
  name: string;
  mono?: boolean;
  testId: string;
  children: ReactNode;
}) {
  return (
    <div className="grid gap-1 border-b border-border py-3 last:border-b-0 sm:grid-cols-[10rem_1fr] sm:gap-4">
      <dt className="text-sm text-muted-foreground">{name}</dt>
      <dd
        className={mono ? "font-mono text-sm [overflow-wrap:anywhere]" : "text-sm font-medium"}
        data-testid={testId}
      >
        {children}
      </dd>
    </div>
  );
}

/** The status procedure's answer, as a list of facts. */
export function StatusPanel() {
  const trpc = useTRPC();
  const status = useQuery(trpc.status.get.queryOptions());

  if (status.isPending) {
    return (
      <div aria-busy="true" className="flex flex-col gap-3 rounded-xl border border-border p-5">
        <span className="sr-only">Reading status…</span>
        {factLines.map((line) => (
          <Skeleton key={line} className="h-5 w-full" />
        ))}
      </div>
    );
  }
  if (status.isError) return <ErrorAlert error={status.error} prefix="Could not read status" />;
  const { data } = status;
  return (
    <Section
      title="Status"
      description="The build serving this page and the database it uses (its server and address only for workspace admins)."
    >
      <dl>
        <Fact name="Version" testId="version">
          {data.version}
        </Fact>
        <Fact name="Revision" mono testId="git-revision">
          {data.gitRevision}
        </Fact>
        <Fact name="Database" testId="database-engine">
          {data.database.engine}
        </Fact>
        {/* Only a workspace admin or owner is told these (status/healthAudience.ts). */}
        {data.database.version === undefined ? null : (
          <Fact name="Server" mono testId="database-version">
            {data.database.version}
          </Fact>
        )}
        {data.database.url === undefined ? null : (
          <Fact name="URL" mono testId="database-url">
            {data.database.url}
          </Fact>
        )}
        <Fact name="Latest migration" mono testId="latest-migration">
          {data.latestMigration === null
            ? "none applied"
            : `${data.latestMigration.name} (applied ${data.latestMigration.appliedAt.toISOString()})`}
        </Fact>
      </dl>
    </Section>
  );
}
