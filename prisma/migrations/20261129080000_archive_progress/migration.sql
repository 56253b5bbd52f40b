-- Capture and restore progress, shown live to whoever follows the session (events.session),
-- from whichever process runs the transfer (the worker's reaper and checkpoint, a web replica's
-- spawner or on-demand capture). One row per lease, overwritten in place at most a few times a
-- second: a snapshot of the transfer under way (or the last one), never a log — the lease's
-- events already tell what each transfer achieved.
CREATE TABLE "archive_progress" (
    "lease_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "operation" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "bytes_done" BIGINT NOT NULL,
    "bytes_total" BIGINT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "archive_progress_pkey" PRIMARY KEY ("lease_id"),
    CONSTRAINT "archive_progress_operation_check" CHECK ("operation" IN ('capture', 'restore')),
    CONSTRAINT "archive_progress_phase_check" CHECK ("phase" IN ('capturing', 'checking', 'hydrating'))
);
ALTER TABLE "archive_progress" ADD CONSTRAINT "archive_progress_lease_id_fkey" FOREIGN KEY ("lease_id") REFERENCES "sandbox_leases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Each new figure wakes the lease's subscribers on every replica (the payload is the lease id,
-- as for lease_events: a hint to re-read, not the data).
CREATE FUNCTION berth_archive_progress_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('berth_lease_events', NEW.lease_id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER archive_progress_notify
  AFTER INSERT OR UPDATE ON archive_progress
  FOR EACH ROW EXECUTE FUNCTION berth_archive_progress_notify();
