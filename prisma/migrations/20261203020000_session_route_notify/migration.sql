-- Hot-swap (issue 41): whoever follows a session's route (an open terminal, a live session
-- feed) is woken when its pointer moves. The payload is only the session id, a hint: the
-- listener re-reads sessions.active_epoch, so a lost or folded notification costs latency, never
-- a move. pg_notify runs at commit: a swap that rolls back wakes no one.
CREATE FUNCTION berth_session_route_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('berth_session_routes', NEW.id::text);
  RETURN NULL;
END $$;

-- active_epoch moves with every change of the pointer (it is the swap's fence); every other
-- update of the session row stays silent.
CREATE TRIGGER sessions_route_notify
  AFTER UPDATE OF active_epoch ON sessions
  FOR EACH ROW
  WHEN (OLD.active_epoch IS DISTINCT FROM NEW.active_epoch)
  EXECUTE FUNCTION berth_session_route_notify();
