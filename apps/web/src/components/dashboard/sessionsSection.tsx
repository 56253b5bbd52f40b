import { serverCaller } from "../../trpc/server.tsx";
import { EmptyState } from "../emptyState.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { Section } from "../section.tsx";
import { boxStates } from "../stateVariant.ts";
import { NewSessionForm } from "./newSessionForm.tsx";
import { overviewRow } from "./overviewRow.ts";
import { SessionsOverview } from "./sessionsOverview.tsx";
import { StateCounts } from "./stateCounts.tsx";

/**
 * The workspace's agent sessions with their box's state, counts by state, a search and a state
 * filter, and a form to start one. Rendered on the server from two queries whatever the number
 * of sessions (the sessions, and every session's box), so the page arrives with its rows.
 */
export async function SessionsSection({ workspaceId }: { workspaceId: string }) {
  const caller = await serverCaller();
  const loaded = await Promise.all([
    caller.sessions.list({ workspaceId }),
    caller.machines.list({ workspaceId }),
  ]).then(
    ([sessions, machines]) => {
      const boxOf = new Map(machines.map((machine) => [machine.sessionId, machine]));
      return sessions.map((session) => overviewRow({ session, box: boxOf.get(session.id) }));
    },
    (error: unknown) => ({ error }),
  );
  const rows = Array.isArray(loaded) ? loaded : [];
  const counts = new Map<string, number>(boxStates.map((state) => [state, 0]));
  for (const { state } of rows) counts.set(state, (counts.get(state) ?? 0) + 1);

  return (
    <Section
      title="Sessions"
      description="Each session has one box: cold until first used, warm while in use."
      action={<StateCounts counts={counts} />}
    >
      <SessionsOverview rows={rows} workspaceId={workspaceId}>
        {"error" in loaded ? (
          <ErrorAlert
            error={loaded.error}
            prefix="Could not load sessions; reload the page to try again"
          />
        ) : (
          <EmptyState
            title="No sessions yet."
            next={
              <>
                Create one with the form below, with <code>berth sessions create</code>, or through
                the API. Its box starts on first use.
              </>
            }
          />
        )}
      </SessionsOverview>
      <NewSessionForm workspaceId={workspaceId} />
    </Section>
  );
}
