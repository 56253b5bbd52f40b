-- Process holders: a process in the box (an open terminal) holds the lease while it runs. It is
-- registered under the exact warm epoch and instance it was started on, so a process of an
-- older box never holds a newer one; losing the instance deletes it (berth_lease_mark_instance_lost).

-- Registers process p_holder_id on the warm box (epoch, instance). Idempotent.
CREATE FUNCTION berth_lease_open_process(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text,
  p_holder_id text, p_subject_id uuid, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_lease FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'stale', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_lease.liveness <> 'warm' OR v_lease.epoch <> p_expected_epoch OR v_lease.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'stale', 'stale_epoch', to_jsonb(v_lease); RETURN;
  END IF;
  IF berth_lease_upsert_holder(p_lease_id, 'process', p_holder_id, p_subject_id, p_now) THEN
    v_lease := berth_lease_count_delta(p_lease_id, 'process', 1);
  END IF;
  RETURN QUERY SELECT 'opened', NULL::text, to_jsonb(v_lease);
END $$;

-- The process ended: its holder goes, and as the last holder of a warm box it starts the idle
-- grace, exactly as a release does (T11).
CREATE FUNCTION berth_lease_close_process(
  p_workspace_id uuid, p_lease_id uuid, p_holder_id text, p_idle_grace_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'closed', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  DELETE FROM lease_holders WHERE lease_id = p_lease_id AND kind = 'process' AND holder_id = p_holder_id;
  IF NOT FOUND THEN RETURN QUERY SELECT 'closed', 'not_held', to_jsonb(v_before); RETURN; END IF;
  v_lease := berth_lease_count_delta(p_lease_id, 'process', -1);
  IF v_lease.liveness = 'warm' AND v_lease.holder_count = 0 THEN
    UPDATE sandbox_leases SET liveness = 'draining', expires_at = p_now + berth_ms(p_idle_grace_ms)
     WHERE id = p_lease_id RETURNING * INTO v_lease;
    PERFORM berth_lease_log(v_before, v_lease, 'drain', 'process:' || p_holder_id, 'last_holder_released', p_now);
  END IF;
  RETURN QUERY SELECT 'closed', NULL::text, to_jsonb(v_lease);
END $$;
