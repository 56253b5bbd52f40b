-- Live updates cross replicas through Postgres: a subscriber reads lease_events by id cursor
-- and sleeps in between; these triggers wake it. The payload is only the lease id (a hint, not
-- the data), so a lost or coalesced notification costs nothing but latency: the subscriber
-- always re-reads the rows. pg_notify runs at commit, so a rolled-back change wakes no one and
-- a woken reader always finds the committed row. Postgres folds identical notifications of one
-- transaction into one.

-- Every accepted lease change is one lease_events row: wake that lease's subscribers.
CREATE FUNCTION berth_lease_events_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('berth_lease_events', NEW.lease_id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER lease_events_notify
  AFTER INSERT ON lease_events
  FOR EACH ROW EXECUTE FUNCTION berth_lease_events_notify();

-- Generation advances (admitted writes, published archives) are not lease events, yet a
-- dashboard shows them live: wake the lease's subscribers when either generation moves. The
-- WHEN clause keeps every other update of the lease row (heartbeats, holder counts) silent.
CREATE FUNCTION berth_lease_generations_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('berth_lease_events', NEW.id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER sandbox_leases_generations_notify
  AFTER UPDATE OF workspace_generation, archive_generation ON sandbox_leases
  FOR EACH ROW
  WHEN (OLD.workspace_generation IS DISTINCT FROM NEW.workspace_generation
        OR OLD.archive_generation IS DISTINCT FROM NEW.archive_generation)
  EXECUTE FUNCTION berth_lease_generations_notify();
