"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc/react.tsx";
import { Section } from "./section.tsx";

/** The status procedure's answer, as a list of facts. */
export function StatusPanel() {
  const trpc = useTRPC();
  const status = useQuery(trpc.status.get.queryOptions());

  if (status.isPending) return <p aria-busy="true">Reading status…</p>;
  if (status.isError) {
    return (
      <p role="alert" className="error">
        Could not read status: {status.error.message}
      </p>
    );
  }
  const { data } = status;
  return (
    <Section title="Status">
      <dl className="facts">
        <dt>Version</dt>
        <dd data-testid="version">{data.version}</dd>
        <dt>Revision</dt>
        <dd className="mono" data-testid="git-revision">
          {data.gitRevision}
        </dd>
        <dt>Database</dt>
        <dd data-testid="database-engine">{data.database.engine}</dd>
        <dt>Server</dt>
        <dd className="mono" data-testid="database-version">
          {data.database.version}
        </dd>
        <dt>URL</dt>
        <dd className="mono" data-testid="database-url">
          {data.database.url}
        </dd>
        <dt>Latest migration</dt>
        <dd className="mono" data-testid="latest-migration">
          {data.latestMigration === null
            ? "none applied"
            : `${data.latestMigration.name} (applied ${data.latestMigration.appliedAt.toISOString()})`}
        </dd>
      </dl>
    </Section>
  );
}
