-- Hot-swap (issue 41). Every move of a session's pointer (sessions.active_sandbox_id, fenced by
-- active_epoch) is logged here, beside the lease's own events: a session that never had a box
-- has no lease, and still a history of where its work went. from/to: null = the group box, else
-- the enrolled machine's id (kept as text: the log outlives a machine's row).
CREATE TABLE "session_events" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "from_target" TEXT,
    "to_target" TEXT,
    "active_epoch" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "session_events_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "session_events_kind_check" CHECK ("kind" IN ('swap'))
);
CREATE INDEX "session_events_session_id_id_idx" ON "session_events"("session_id", "id");
ALTER TABLE "session_events" ADD CONSTRAINT "session_events_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "session_events" ADD CONSTRAINT "session_events_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
