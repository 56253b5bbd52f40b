"use client";

import type { RouterOutputs } from "@berth/api";
import { Skeleton } from "@berth/ui/skeleton";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "../trpc/react.tsx";
import { ErrorAlert } from "./errorAlert.tsx";
import { Section } from "./section.tsx";

/** As many placeholder lines as the panel has facts. */
const factLines = [0, 1, 2, 3, 4, 5, 6];

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

type ArchiveStoreView = NonNullable<RouterOutputs["status"]["get"]["archiveStore"]>;

const storeNames: Record<ArchiveStoreView["kind"], string> = {
  filesystem: "Folder",
  s3: "S3 bucket",
};

/** The archive store: its kind and whether it answers; where, and what is wrong, to admins. */
function ArchiveStoreFacts({ store }: { store: ArchiveStoreView }) {
  return (
    <>
      <Fact name="Archive store" testId="archive-store">
        {`${storeNames[store.kind]}, ${store.reachable ? "reachable" : "unreachable: captures and restores fail until it is back"}`}
      </Fact>
      {store.location === undefined ? null : (
        <Fact name="Archives at" mono testId="archive-location">
          {store.endpoint === undefined ? store.location : `${store.location} (${store.endpoint})`}
        </Fact>
      )}
      {store.problem === undefined ? null : (
        <Fact name="Store problem" testId="archive-problem">
          {store.problem}
        </Fact>
      )}
    </>
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
      description="The build serving this page, the database it uses and the archive store (where they are only for workspace admins)."
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
        {data.archiveStore === null ? null : <ArchiveStoreFacts store={data.archiveStore} />}
      </dl>
    </Section>
  );
}
