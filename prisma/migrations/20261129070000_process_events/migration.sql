-- A process that starts or stops holding the box (a terminal opened, exited or closed) is part of
-- the session's story, so a dashboard following events.session sees it live: each change of the
-- process holder set is one lease_events row ('process_opened' | 'process_closed'), whose insert
-- wakes subscribers through lease_events_notify. Liveness and epoch do not move (from_state =
-- to_state); the actor is the process holder's id. An idempotent repeat records nothing.
-- A process taken by an instance loss is told by that 'instance_lost' event instead.

CREATE FUNCTION berth_lease_log_process(
  p_lease sandbox_leases, p_transition text, p_holder_id text, p_now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lease_events (lease_id, workspace_id, transition, from_state, to_state, epoch_before, epoch_after, actor, reason, details, at)
  VALUES (p_lease.id, p_lease.workspace_id, p_transition, p_lease.liveness, p_lease.liveness,
          p_lease.epoch, p_lease.epoch, p_holder_id, NULL,
          jsonb_build_object('instanceId', p_lease.instance_id), p_now);
END $$;

CREATE OR REPLACE FUNCTION berth_lease_open_process(
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
    PERFORM berth_lease_log_process(v_lease, 'process_opened', p_holder_id, p_now);
  END IF;
  RETURN QUERY SELECT 'opened', NULL::text, to_jsonb(v_lease);
END $$;

-- The close is logged before a drain it may start, so a timeline reads cause then effect.
CREATE OR REPLACE FUNCTION berth_lease_close_process(
  p_workspace_id uuid, p_lease_id uuid, p_holder_id text, p_idle_grace_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_left record;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'closed', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF EXISTS (SELECT 1 FROM lease_holders WHERE lease_id = p_lease_id AND kind = 'process' AND holder_id = p_holder_id) THEN
    PERFORM berth_lease_log_process(v_before, 'process_closed', p_holder_id, p_now);
  END IF;
  v_left := berth_lease_holder_left(v_before, 'process', p_holder_id, p_idle_grace_ms, p_now);
  RETURN QUERY SELECT 'closed', CASE WHEN v_left.deleted THEN NULL ELSE 'not_held' END, to_jsonb(v_left.lease);
END $$;
