-- Drain to suspend (issue 37): on a backend whose drain keeps the disk (Kubernetes), the reaper
-- captures the box, then suspends it instead of deleting it. The cold lease remembers the
-- suspended allocation and instance, so the next spawner can resume that very box (no
-- hydration) when its disk still holds the selected revision; otherwise it deletes it (fenced,
-- with its disk) and rematerializes into a new allocation. A suspended box idle past the
-- backend's TTL is forgotten and deleted once the archive covers every admitted write.
--
-- The suspended pair is only ever set together (CHECK), only on a cold lease by the drain, and
-- cleared by the one spawner that takes it (resume) or by the TTL sweep; allocation_id and
-- instance_id keep their meaning (the live box of this epoch), so no existing transition reads
-- a suspended box as a live one.

ALTER TABLE "sandbox_leases" ADD COLUMN "suspended_allocation_id" TEXT;
ALTER TABLE "sandbox_leases" ADD COLUMN "suspended_instance_id" TEXT;
ALTER TABLE "sandbox_leases" ADD COLUMN "suspended_at" TIMESTAMPTZ(3);
ALTER TABLE "sandbox_leases" ADD CONSTRAINT "sandbox_leases_suspended_check" CHECK (
  ("suspended_allocation_id" IS NULL AND "suspended_instance_id" IS NULL AND "suspended_at" IS NULL)
  OR ("suspended_allocation_id" IS NOT NULL AND "suspended_instance_id" IS NOT NULL AND "suspended_at" IS NOT NULL));
-- The TTL sweep scans only cold leases that remember a suspended box.
CREATE INDEX "sandbox_leases_suspended_idx" ON "sandbox_leases"("suspended_at") WHERE "suspended_instance_id" IS NOT NULL;

-- T14, as before, plus p_suspended: the caller suspended the box (its disk kept) after a
-- published capture, instead of terminating it. Then the allocation and instance move to the
-- suspended pair (allocation_id and instance_id are cleared as for a terminated box), and the
-- provider is recorded as existing. Without p_suspended it is exactly the old transition.
DROP FUNCTION berth_lease_confirm_drain_cold(uuid, uuid, integer, text, boolean, text, timestamptz);
CREATE FUNCTION berth_lease_confirm_drain_cold(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text,
  p_provider_missing boolean, p_suspended boolean, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
  v_complete boolean;
  v_clean boolean;
  v_keep boolean;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'draining' OR v_before.epoch <> p_expected_epoch OR v_before.holder_count <> 0
     OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  -- A suspend is kept only for a box the lease recorded with its allocation.
  IF p_suspended AND (p_provider_missing OR p_instance_id IS NULL OR v_before.allocation_id IS NULL) THEN
    RETURN QUERY SELECT 'refused', 'suspension_invalid', to_jsonb(v_before); RETURN;
  END IF;
  v_keep := p_suspended;
  v_complete := v_before.archive_status = 'available' AND v_before.archive_generation = v_before.workspace_generation;
  v_clean := v_before.archive_status = 'none' AND NOT p_provider_missing;
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, allocation_id = NULL,
         suspended_allocation_id = CASE WHEN v_keep THEN v_before.allocation_id ELSE suspended_allocation_id END,
         suspended_instance_id = CASE WHEN v_keep THEN v_before.instance_id ELSE suspended_instance_id END,
         suspended_at = CASE WHEN v_keep THEN p_now ELSE suspended_at END,
         rotation_requested_at = NULL, drain_claim_id = NULL, drain_claim_expires_at = NULL,
         provider_status = CASE WHEN p_provider_missing THEN 'missing' WHEN v_keep THEN 'exists' ELSE 'not_created' END,
         selected_revision = CASE WHEN v_complete THEN archive_revision ELSE selected_revision END,
         restore_status = CASE WHEN v_complete THEN 'pending' WHEN v_clean THEN 'not_required'
                               WHEN archive_status = 'none' THEN 'unrecoverable' ELSE 'degraded' END,
         workspace_status = CASE WHEN v_complete THEN 'not_ready' WHEN v_clean THEN 'unknown'
                                 WHEN archive_status = 'none' THEN 'unrecoverable' ELSE 'degraded' END,
         failure_code = CASE WHEN v_complete OR v_clean THEN NULL
                             WHEN archive_status = 'none' THEN 'provider_missing_before_capture'
                             ELSE 'archive_generation_mismatch' END,
         retryable = CASE WHEN v_complete OR v_clean THEN NULL ELSE false END,
         expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'drain_cold', p_actor,
    CASE WHEN v_keep THEN 'suspended' ELSE NULL END, p_now);
  RETURN QUERY SELECT 'cold', NULL::text, to_jsonb(v_lease);
END $$;

-- The warming spawner takes the suspended box as this epoch's box, before it resumes it (so a
-- spawner that dies meanwhile leaves a recorded box the reaper stops, as after a create). Only
-- the current restore attempt may take it; the suspended pair is cleared in the same step, so
-- the box belongs to the lease through allocation_id/instance_id only. Refused, changing
-- nothing: stale_epoch, suspension_mismatch (not the box the lease remembers), allocation_mismatch
-- (this epoch already chose an allocation), rematerialization_mismatch.
CREATE FUNCTION berth_lease_take_suspended(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text,
  p_rematerialization_id uuid, p_warming_ttl_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.suspended_instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'suspension_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.allocation_id IS NOT NULL OR v_before.instance_id IS NOT NULL THEN
    RETURN QUERY SELECT 'refused', 'allocation_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.rematerialization_id IS DISTINCT FROM p_rematerialization_id THEN
    RETURN QUERY SELECT 'refused', 'rematerialization_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases
     SET allocation_id = suspended_allocation_id, instance_id = suspended_instance_id,
         suspended_allocation_id = NULL, suspended_instance_id = NULL, suspended_at = NULL,
         provider_status = 'creating', expires_at = GREATEST(expires_at, p_now + berth_ms(p_warming_ttl_ms))
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'take_suspended', 'spawner', NULL, p_now);
  RETURN QUERY SELECT 'taken', NULL::text, to_jsonb(v_lease);
END $$;

-- The spawner deleted the box it took (its disk did not hold the selected revision, or it would
-- not resume) and confirmed it gone: the epoch forgets it, so the next allocation intent is a new
-- one. The restore attempt stays current (the new box is restored under it). Refused, changing
-- nothing: stale_epoch, instance_mismatch.
CREATE FUNCTION berth_lease_discard_taken(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text,
  p_reason text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'instance_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  -- (What the box was given goes with instance_id: the forget-box trigger.)
  UPDATE sandbox_leases SET allocation_id = NULL, instance_id = NULL, provider_status = 'creating'
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'discard_suspended', 'spawner', p_reason, p_now);
  RETURN QUERY SELECT 'discarded', NULL::text, to_jsonb(v_lease);
END $$;

-- The TTL sweep: cold leases whose suspended box has been idle for p_ttl_ms, and whose archive
-- covers every admitted write (so the disk holds nothing the archive lacks), forget the box in
-- the same statement that locks them (SKIP LOCKED: a lease an acquire holds is left to it).
-- Forgetting comes first: no spawner can take the box afterwards, so the caller's delete races
-- nobody, and a delete that fails leaves an unrecorded box the orphan sweep removes. Each row's
-- reason is the forgotten instance id (the box to delete).
CREATE FUNCTION berth_lease_forget_idle_suspended(p_now timestamptz, p_ttl_ms integer, p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  FOR v_before IN
    SELECT * FROM sandbox_leases
     WHERE suspended_instance_id IS NOT NULL AND liveness = 'cold' AND suspended_at <= p_now - berth_ms(p_ttl_ms)
       AND archive_status = 'available' AND archive_generation = workspace_generation
     ORDER BY suspended_at LIMIT p_limit FOR UPDATE SKIP LOCKED
  LOOP
    UPDATE sandbox_leases
       SET suspended_allocation_id = NULL, suspended_instance_id = NULL, suspended_at = NULL,
           provider_status = 'not_created'
     WHERE id = v_before.id RETURNING * INTO v_lease;
    PERFORM berth_lease_log(v_before, v_lease, 'forget_suspended', 'reaper', 'suspended_ttl', p_now);
    RETURN QUERY SELECT 'forgotten', v_before.suspended_instance_id, to_jsonb(v_lease);
  END LOOP;
END $$;
