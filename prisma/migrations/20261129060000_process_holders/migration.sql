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

-- One holder row leaves a locked lease (v_before): the counts move by exactly that row, and the
-- last holder of a warm box starts the idle grace (T11). Shared by a release and a process end;
-- answers the row after, and whether a holder was there.
CREATE FUNCTION berth_lease_holder_left(
  p_before sandbox_leases, p_kind text, p_holder_id text, p_idle_grace_ms integer, p_now timestamptz,
  OUT lease sandbox_leases, OUT deleted boolean)
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM lease_holders WHERE lease_id = p_before.id AND kind = p_kind AND holder_id = p_holder_id;
  deleted := FOUND;
  lease := p_before;
  IF deleted THEN
    lease := berth_lease_count_delta(p_before.id, p_kind, -1);
  END IF;
  IF lease.liveness = 'warm' AND lease.holder_count = 0 THEN
    UPDATE sandbox_leases SET liveness = 'draining', expires_at = p_now + berth_ms(p_idle_grace_ms)
     WHERE id = p_before.id RETURNING * INTO lease;
    PERFORM berth_lease_log(p_before, lease, 'drain', p_kind || ':' || p_holder_id, 'last_holder_released', p_now);
  END IF;
END $$;

-- Unchanged in behaviour: the departure itself now lives in berth_lease_holder_left.
CREATE OR REPLACE FUNCTION berth_lease_release(
  p_workspace_id uuid, p_lease_id uuid, p_kind text, p_holder_id text, p_idle_grace_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_left record;
BEGIN
  IF p_kind = 'process' THEN RETURN QUERY SELECT 'error', 'process_not_releasable', NULL::jsonb; RETURN; END IF;
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'released', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  v_left := berth_lease_holder_left(v_before, p_kind, p_holder_id, p_idle_grace_ms, p_now);
  RETURN QUERY SELECT 'released', CASE WHEN v_left.deleted THEN NULL ELSE 'not_held' END, to_jsonb(v_left.lease);
END $$;

-- The process ended: its holder goes, exactly as a release of it would.
CREATE FUNCTION berth_lease_close_process(
  p_workspace_id uuid, p_lease_id uuid, p_holder_id text, p_idle_grace_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_left record;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'closed', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  v_left := berth_lease_holder_left(v_before, 'process', p_holder_id, p_idle_grace_ms, p_now);
  RETURN QUERY SELECT 'closed', CASE WHEN v_left.deleted THEN NULL ELSE 'not_held' END, to_jsonb(v_left.lease);
END $$;
