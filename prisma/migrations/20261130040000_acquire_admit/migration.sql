-- A write through box services needs a holder, the session's route and an admission before it
-- reaches the box. When the holder attaches to a warm lease whose session is routed to its
-- group box, this does all three in one round trip: berth_lease_acquire, then the pointer as it
-- stands after it, then berth_lease_admit_write under that very holder, epoch, instance and
-- route (it sees the holder the acquire just made: same transaction). Any other outcome admits
-- nothing and answers NULL admission columns: the caller admits once the box is warm.
CREATE FUNCTION berth_lease_acquire_admit(
  p_workspace_id uuid, p_session_id uuid, p_kind text, p_holder_id text, p_profile text,
  p_lease_ttl_ms integer, p_warming_ttl_ms integer, p_expected_epoch integer, p_now timestamptz,
  p_operation text)
RETURNS TABLE (outcome text, reason text, lease jsonb, active_sandbox_id uuid, active_epoch integer,
               admit_outcome text, admit_reason text, admission_id uuid, generation integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_acquired record;
  v_session record;
  v_admit record;
BEGIN
  SELECT * INTO v_acquired FROM berth_lease_acquire(p_workspace_id, p_session_id, p_kind, p_holder_id,
    p_profile, p_lease_ttl_ms, p_warming_ttl_ms, p_expected_epoch, p_now);
  SELECT s.active_sandbox_id, s.active_epoch INTO v_session
    FROM sessions s WHERE s.id = p_session_id AND s.workspace_id = p_workspace_id;
  IF v_acquired.outcome IN ('attached', 'rearmed') AND v_acquired.lease->>'liveness' = 'warm'
     AND v_acquired.lease->>'instance_id' IS NOT NULL AND FOUND AND v_session.active_sandbox_id IS NULL THEN
    SELECT * INTO v_admit FROM berth_lease_admit_write(p_workspace_id, (v_acquired.lease->>'id')::uuid,
      p_session_id, (v_acquired.lease->>'epoch')::int, v_acquired.lease->>'instance_id', p_kind, p_holder_id,
      v_session.active_sandbox_id, v_session.active_epoch, p_operation, p_now);
    RETURN QUERY SELECT v_acquired.outcome, v_acquired.reason, v_acquired.lease, v_session.active_sandbox_id,
      v_session.active_epoch, v_admit.outcome, v_admit.reason, v_admit.admission_id, v_admit.generation;
    RETURN;
  END IF;
  RETURN QUERY SELECT v_acquired.outcome, v_acquired.reason, v_acquired.lease, v_session.active_sandbox_id,
    v_session.active_epoch, NULL::text, NULL::text, NULL::uuid, NULL::integer;
END $$;
