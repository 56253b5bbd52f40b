-- Durable archives: unverified archive rows, the capture CAS that refuses a workspace changed
-- while it was captured, deduplicated revisions, retention, the checkpoint claim, and one
-- retry for a retryable restore failure.

ALTER TABLE "workspace_archives" DROP CONSTRAINT "workspace_archives_status_check";
ALTER TABLE "workspace_archives" ADD CONSTRAINT "workspace_archives_status_check"
  CHECK ("status" IN ('available', 'unverified', 'invalid'));

ALTER TABLE "sandbox_leases" ADD COLUMN "checkpoint_claim_id" UUID;
ALTER TABLE "sandbox_leases" ADD COLUMN "checkpoint_claim_expires_at" TIMESTAMPTZ(3);

-- Publishes a capture of generation g of the live box: the same epoch and instance, the
-- workspace still at g (a write admitted while the capture ran makes it stale:
-- workspace_changed_during_capture, retryable by capturing again), and every admission <= g
-- settled. A revision the lease already holds as an available archive is not stored again:
-- with p_archive NULL the row only has its generation raised (blob_required when there is no
-- such row); a new blob that lost a race to an equal revision is answered `deduplicated`, and
-- its caller deletes it.
DROP FUNCTION berth_lease_publish_archive(uuid, uuid, integer, text, integer, jsonb, text, timestamptz);
CREATE FUNCTION berth_lease_publish_archive(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text, p_generation integer,
  p_revision text, p_archive jsonb, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
  v_existing workspace_archives;
  v_reason text;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness NOT IN ('warm', 'draining') OR v_before.epoch <> p_expected_epoch
     OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF p_generation <> v_before.workspace_generation THEN
    RETURN QUERY SELECT 'refused', 'workspace_changed_during_capture', to_jsonb(v_before); RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM mutation_admissions WHERE lease_id = p_lease_id AND settled_at IS NULL AND generation <= p_generation) THEN
    RETURN QUERY SELECT 'refused', 'admissions_unsettled', to_jsonb(v_before); RETURN;
  END IF;
  SELECT * INTO v_existing FROM workspace_archives WHERE lease_id = p_lease_id AND revision = p_revision FOR UPDATE;
  IF FOUND AND v_existing.status = 'available' THEN
    UPDATE workspace_archives SET generation = greatest(generation, p_generation) WHERE id = v_existing.id;
    v_reason := CASE WHEN p_archive IS NULL THEN NULL ELSE 'deduplicated' END;
  ELSIF p_archive IS NULL THEN
    RETURN QUERY SELECT 'refused', 'blob_required', to_jsonb(v_before); RETURN;
  ELSIF FOUND THEN
    -- An unverified or invalid row of this revision is replaced by the new, verified blob.
    UPDATE workspace_archives
       SET generation = p_generation, size_bytes = (p_archive->>'sizeBytes')::bigint,
           file_count = (p_archive->>'fileCount')::int, storage_key = p_archive->>'storageKey',
           sha256 = p_archive->>'sha256', status = 'available', created_at = p_now
     WHERE id = v_existing.id;
    v_reason := 'replaced';
  ELSE
    INSERT INTO workspace_archives (workspace_id, lease_id, revision, generation, size_bytes, file_count, storage_key, sha256, created_at)
    VALUES (p_workspace_id, p_lease_id, p_revision, p_generation, (p_archive->>'sizeBytes')::bigint,
            (p_archive->>'fileCount')::int, p_archive->>'storageKey', p_archive->>'sha256', p_now);
  END IF;
  UPDATE sandbox_leases SET archive_status = 'available', archive_generation = p_generation, archive_revision = p_revision
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'publish_archive', p_actor, p_revision, p_now);
  RETURN QUERY SELECT 'published', v_reason, to_jsonb(v_lease);
END $$;

-- Retention: keeps the newest p_keep archives of a lease (by generation, then age) plus, always,
-- the current and the selected revision. Deletes the rest under the lease lock and answers
-- their storage keys; each key names one capture's blob, so no other row can refer to it.
CREATE FUNCTION berth_archive_prune(p_workspace_id uuid, p_lease_id uuid, p_keep integer)
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
     AND a.id NOT IN (SELECT k.id FROM workspace_archives k WHERE k.lease_id = p_lease_id
                       ORDER BY k.generation DESC, k.created_at DESC LIMIT greatest(p_keep, 1))
  RETURNING a.storage_key;
END $$;

-- Claims warm leases whose workspace moved past its archive and has been quiet (no admission
-- newer than p_quiet_ms, none in flight), for a periodic checkpoint. SKIP LOCKED plus a claim
-- that outlives the statement: any number of workers, one checkpoint per lease at a time.
CREATE FUNCTION berth_lease_claim_checkpoints(
  p_now timestamptz, p_claim_id uuid, p_claim_ttl_ms integer, p_quiet_ms integer, p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE sql AS $$
  UPDATE sandbox_leases l
     SET checkpoint_claim_id = p_claim_id, checkpoint_claim_expires_at = p_now + berth_ms(p_claim_ttl_ms)
    FROM (SELECT s.id FROM sandbox_leases s
           WHERE s.liveness = 'warm' AND s.instance_id IS NOT NULL AND s.workspace_generation > 0
             AND s.archive_generation IS DISTINCT FROM s.workspace_generation
             AND (s.checkpoint_claim_expires_at IS NULL OR s.checkpoint_claim_expires_at <= p_now)
             AND NOT EXISTS (SELECT 1 FROM mutation_admissions a WHERE a.lease_id = s.id
                               AND (a.settled_at IS NULL OR a.admitted_at > p_now - berth_ms(p_quiet_ms)))
           ORDER BY s.workspace_generation - coalesce(s.archive_generation, 0) DESC
           LIMIT p_limit FOR UPDATE SKIP LOCKED) c
   WHERE l.id = c.id
  RETURNING 'claimed'::text, NULL::text, to_jsonb(l)
$$;

-- A retryable restore failure allows one retry; a second failure, or any non-retryable one,
-- makes the lease unrecoverable (blocked until an admin restores a revision or starts fresh).
CREATE OR REPLACE FUNCTION berth_lease_fail_rematerialization(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_rematerialization_id uuid,
  p_failure_code text, p_retryable boolean, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
  v_retry boolean;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.rematerialization_id IS DISTINCT FROM p_rematerialization_id THEN
    RETURN QUERY SELECT 'refused', 'rematerialization_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  v_retry := p_retryable AND v_before.restore_attempts = 0;
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, allocation_id = NULL,
         rematerialization_id = NULL, provider_status = 'not_created',
         restore_attempts = restore_attempts + 1,
         restore_status = CASE WHEN v_retry THEN 'degraded' ELSE 'unrecoverable' END,
         workspace_status = CASE WHEN v_retry THEN 'degraded' ELSE 'unrecoverable' END,
         failure_code = left(p_failure_code, 96), retryable = v_retry, expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  UPDATE rematerializations SET status = 'failed', failure_code = left(p_failure_code, 96),
         retryable = p_retryable, completed_at = p_now
   WHERE id = p_rematerialization_id;
  PERFORM berth_lease_log(v_before, v_lease, 'restore_failed', 'spawner', left(p_failure_code, 96), p_now);
  RETURN QUERY SELECT 'failed', NULL::text, to_jsonb(v_lease);
END $$;
