-- Hot-swap (issue 41): a box call follows the session's pointer. Routed to an enrolled machine, it
-- must take no holder of the group lease and never wake the group box; routed to the group box,
-- it acquires as before. Deciding inside the acquire statement keeps a call at one round trip
-- before it reaches its target (a separate read of the pointer first cost every call one more).
-- Outcome 'routed' (no holder taken, nothing changed) carries the pointer; otherwise the row is
-- berth_lease_acquire_admit's (p_operation: a write's name) or berth_lease_acquire's with the
-- pointer read after it (p_operation NULL: a read). A swap committing between this function's
-- read of the pointer and its acquire is caught as before: the pointer is read again after the
-- acquire, and a write's admission checks it under the lease row's lock.
CREATE FUNCTION berth_call_acquire(
  p_workspace_id uuid, p_session_id uuid, p_kind text, p_holder_id text, p_profile text,
  p_lease_ttl_ms integer, p_warming_ttl_ms integer, p_expected_epoch integer, p_now timestamptz,
  p_operation text)
RETURNS TABLE (outcome text, reason text, lease jsonb, active_sandbox_id uuid, active_epoch integer,
               admit_outcome text, admit_reason text, admission_id uuid, generation integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_session record;
BEGIN
  SELECT s.active_sandbox_id, s.active_epoch INTO v_session
    FROM sessions s WHERE s.id = p_session_id AND s.workspace_id = p_workspace_id;
  IF FOUND AND v_session.active_sandbox_id IS NOT NULL THEN
    RETURN QUERY SELECT 'routed'::text, NULL::text, NULL::jsonb, v_session.active_sandbox_id,
      v_session.active_epoch, NULL::text, NULL::text, NULL::uuid, NULL::integer;
    RETURN;
  END IF;
  IF p_operation IS NOT NULL THEN
    RETURN QUERY SELECT * FROM berth_lease_acquire_admit(p_workspace_id, p_session_id, p_kind,
      p_holder_id, p_profile, p_lease_ttl_ms, p_warming_ttl_ms, p_expected_epoch, p_now, p_operation);
    RETURN;
  END IF;
  RETURN QUERY SELECT f.outcome, f.reason, f.lease, s.active_sandbox_id, s.active_epoch,
      NULL::text, NULL::text, NULL::uuid, NULL::integer
    FROM berth_lease_acquire(p_workspace_id, p_session_id, p_kind, p_holder_id, p_profile,
      p_lease_ttl_ms, p_warming_ttl_ms, p_expected_epoch, p_now) f
    LEFT JOIN sessions s ON s.id = p_session_id AND s.workspace_id = p_workspace_id;
END $$;
