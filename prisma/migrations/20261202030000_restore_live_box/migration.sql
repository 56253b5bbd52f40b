-- An admin's restore of a live box (issue 33): the box is fenced, captured, stopped, and the
-- chosen revision selected, all under the epoch the restore started from. Fencing first is what
-- keeps a write from landing between the capture and the stop: once the lease is draining past
-- its grace no write is admitted (admission needs a warm lease) and every arrival is answered
-- `fenced` (it waits, and meets the restored workspace), so the capture holds every admitted write.
--
-- The restore's fence is a drain claim (drain_claim_id), so a reaper never drains the box under
-- it; restore_claim_id names the claim as the restore's own, and restore_claim_revision keeps
-- the chosen revision from retention while the capture publishes and prunes. A restore whose
-- process dies leaves a claim that expires: the reaper then takes the lease over and drains it
-- as any idle box (captured, stopped, cold), so nothing is lost and nothing stays fenced.

ALTER TABLE "sandbox_leases" ADD COLUMN "restore_claim_id" UUID;
ALTER TABLE "sandbox_leases" ADD COLUMN "restore_claim_revision" TEXT;

-- Fence: a warm or draining lease at the expected epoch and instance becomes draining past its
-- grace under the restore's claim. Every holder goes (as for a rotation: they must arrive again,
-- and a holder left behind would keep the reaper from ever taking over a dead restore's claim).
-- Refused, changing nothing: stale_epoch (the lease moved since the restore read it),
-- spawn_in_progress, restore_in_progress (another restore's claim is live), drain_in_progress
-- (a reaper's is), revision_not_found. The same claim again is answered `fenced` (idempotent).
CREATE FUNCTION berth_lease_fence_restore(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text, p_claim_id uuid,
  p_revision text, p_claim_ttl_ms integer, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.epoch <> p_expected_epoch OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.liveness = 'warming' THEN
    RETURN QUERY SELECT 'refused', 'spawn_in_progress', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.liveness NOT IN ('warm', 'draining') THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.drain_claim_id IS NOT NULL AND v_before.drain_claim_expires_at > p_now THEN
    IF v_before.drain_claim_id = p_claim_id AND v_before.restore_claim_id = p_claim_id THEN
      RETURN QUERY SELECT 'fenced', NULL::text, to_jsonb(v_before); RETURN;
    END IF;
    RETURN QUERY SELECT 'refused',
      CASE WHEN v_before.restore_claim_id = v_before.drain_claim_id THEN 'restore_in_progress' ELSE 'drain_in_progress' END,
      to_jsonb(v_before);
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM workspace_archives WHERE lease_id = p_lease_id AND revision = p_revision AND status = 'available') THEN
    RETURN QUERY SELECT 'refused', 'revision_not_found', to_jsonb(v_before); RETURN;
  END IF;
  DELETE FROM lease_holders WHERE lease_id = p_lease_id;
  PERFORM berth_lease_recount(p_lease_id);
  UPDATE sandbox_leases
     SET liveness = 'draining', expires_at = LEAST(expires_at, p_now),
         drain_claim_id = p_claim_id, drain_claim_expires_at = p_now + berth_ms(p_claim_ttl_ms),
         restore_claim_id = p_claim_id, restore_claim_revision = p_revision
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'restore_fence', p_actor, p_revision, p_now);
  RETURN QUERY SELECT 'fenced', NULL::text, to_jsonb(v_lease);
END $$;

-- Unfence: a restore that could not go on (no capture now, writes still in flight, the box
-- would not stop) gives its claim back. The box keeps running, idle: draining with a fresh
-- grace and no holder, so the next arrival re-arms it (a rotation asked meanwhile keeps its
-- immediate drain). Only the claim's owner at the same epoch may: fence_lost otherwise.
CREATE FUNCTION berth_lease_unfence_restore(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_claim_id uuid, p_idle_grace_ms integer,
  p_actor text, p_reason text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.epoch <> p_expected_epoch OR v_before.liveness <> 'draining'
     OR v_before.drain_claim_id IS DISTINCT FROM p_claim_id OR v_before.restore_claim_id IS DISTINCT FROM p_claim_id THEN
    RETURN QUERY SELECT 'refused', 'fence_lost', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases
     SET drain_claim_id = NULL, drain_claim_expires_at = NULL, restore_claim_id = NULL, restore_claim_revision = NULL,
         expires_at = CASE WHEN rotation_requested_at IS NULL THEN p_now + berth_ms(p_idle_grace_ms) ELSE expires_at END
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'restore_unfence', p_actor, left(p_reason, 96), p_now);
  RETURN QUERY SELECT 'unfenced', NULL::text, to_jsonb(v_lease);
END $$;

-- Restore revision R. With a live box (p_instance_id set) the caller fenced it under p_claim_id,
-- captured it (its workspace is now an archive of its own) and stopped it: the lease must still
-- be draining at the same epoch and instance under that very claim (fence_lost otherwise: the
-- claim expired and a reaper took the box over). Without one, the lease must be cold (a blocked
-- or lost box). Goes cold at epoch+1 with R selected and published as current, and
-- workspace_generation+1 = archive_generation: R is complete, and every older write is fenced.
DROP FUNCTION berth_lease_restore_revision(uuid, uuid, integer, text, text, text, text, timestamptz);
CREATE FUNCTION berth_lease_restore_revision(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text, p_claim_id uuid,
  p_revision text, p_actor_kind text, p_actor_id text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.epoch <> p_expected_epoch OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.liveness = 'warming' THEN RETURN QUERY SELECT 'refused', 'spawn_in_progress', to_jsonb(v_before); RETURN; END IF;
  IF p_instance_id IS NOT NULL AND (v_before.liveness <> 'draining' OR p_claim_id IS NULL
       OR v_before.drain_claim_id IS DISTINCT FROM p_claim_id OR v_before.restore_claim_id IS DISTINCT FROM p_claim_id) THEN
    RETURN QUERY SELECT 'refused', 'fence_lost', to_jsonb(v_before); RETURN;
  END IF;
  IF p_instance_id IS NULL AND v_before.liveness <> 'cold' THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM workspace_archives WHERE lease_id = p_lease_id AND revision = p_revision AND status = 'available') THEN
    RETURN QUERY SELECT 'refused', 'revision_not_found', to_jsonb(v_before); RETURN;
  END IF;
  DELETE FROM lease_holders WHERE lease_id = p_lease_id AND kind = 'process';
  PERFORM berth_lease_recount(p_lease_id);
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, allocation_id = NULL, rematerialization_id = NULL,
         workspace_generation = workspace_generation + 1, archive_generation = workspace_generation + 1,
         archive_status = 'available', archive_revision = p_revision, selected_revision = p_revision,
         restore_status = 'pending', workspace_status = 'not_ready', provider_status = 'not_created',
         failure_code = NULL, retryable = NULL, restore_attempts = 0, drain_claim_id = NULL,
         drain_claim_expires_at = NULL, restore_claim_id = NULL, restore_claim_revision = NULL,
         rotation_requested_at = NULL, expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  INSERT INTO audit_events (workspace_id, actor_kind, actor_id, action, target_kind, target_id, before, after, at)
  VALUES (p_workspace_id, p_actor_kind, p_actor_id, 'lease.restore_revision', 'lease', p_lease_id::text,
          jsonb_build_object('epoch', v_before.epoch, 'liveness', v_before.liveness, 'archiveRevision', v_before.archive_revision,
                             'archiveGeneration', v_before.archive_generation, 'workspaceGeneration', v_before.workspace_generation,
                             'instanceId', v_before.instance_id),
          jsonb_build_object('epoch', v_lease.epoch, 'selectedRevision', p_revision,
                             'workspaceGeneration', v_lease.workspace_generation, 'archiveGeneration', v_lease.archive_generation),
          p_now);
  PERFORM berth_lease_log(v_before, v_lease, 'restore_revision', p_actor_kind || ':' || p_actor_id, p_revision, p_now);
  RETURN QUERY SELECT 'restored', NULL::text, to_jsonb(v_lease);
END $$;

-- Retention as before (the newest p_keep, the current and the selected revision), and also the
-- revision a restore in progress is about to select: its own capture publishes and prunes first.
CREATE OR REPLACE FUNCTION berth_archive_prune(p_workspace_id uuid, p_lease_id uuid, p_keep integer)
RETURNS TABLE (storage_key text) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_lease FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  RETURN QUERY
  DELETE FROM workspace_archives a
   WHERE a.lease_id = p_lease_id
     AND a.revision IS DISTINCT FROM v_lease.archive_revision
     AND a.revision IS DISTINCT FROM v_lease.selected_revision
     AND a.revision IS DISTINCT FROM v_lease.restore_claim_revision
     AND a.id NOT IN (SELECT k.id FROM workspace_archives k WHERE k.lease_id = p_lease_id
                       ORDER BY k.generation DESC, k.created_at DESC LIMIT greatest(p_keep, 1))
  RETURNING a.storage_key;
END $$;
